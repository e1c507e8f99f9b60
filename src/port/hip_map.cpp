#include "port/hip_map.h"

#include <fmt/format.h>

#include <vector>

namespace dcukit::generated {
extern const std::string_view kHipMapTsv;
}

namespace dcukit::port {

Result<HipMap> parse_hip_map(std::string_view tsv) {
  HipMap out;
  int line_no = 0;
  while (!tsv.empty()) {
    const std::size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv = nl == std::string_view::npos ? std::string_view() : tsv.substr(nl + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> cols;
    for (std::size_t start = 0;;) {
      const std::size_t tab = line.find('\t', start);
      cols.emplace_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    if (cols.size() < 3 || cols[0].empty() || cols[1].empty() || cols[2].empty())
      return Error{fmt::format("hip_map.tsv:{}: expected 'cuda<TAB>hip<TAB>kind[<TAB>note]'", line_no)};
    HipName n{cols[1] == "-" ? std::string() : cols[1], cols[2], cols.size() > 3 ? cols[3] : std::string()};
    if (!out.emplace(cols[0], std::move(n)).second)
      return Error{fmt::format("hip_map.tsv:{}: {} is mapped twice", line_no, cols[0])};
  }
  return out;
}

const HipMap& hip_map() {
  static const HipMap map = [] {
    auto parsed = parse_hip_map(generated::kHipMapTsv);
    return parsed ? std::move(*parsed) : HipMap{};
  }();
  return map;
}

}  // namespace dcukit::port
