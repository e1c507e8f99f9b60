// nvidia-smi topo -m: a matrix of GPUs and NICs (X, NV#, PIX, PXB, PHB, NODE, SYS) followed by
// CPU Affinity, NUMA Affinity and GPU NUMA ID. Cells are tab-separated as printed (with an empty
// cell before GPU NUMA ID) or space-separated when pasted through a web page; rows of NICs stop
// after the links; a paste may cut the last row short, or run cells together ("NODENODE"): those
// are split by the matrix's words, and a row that still does not line up is said, not read.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "telemetry/parsers.h"
#include "util/regex.h"

namespace dcukit::telemetry::parse {
namespace {

bool is_endpoint(const std::string& s) {
  static const util::Regex kEndpoint(R"((GPU|NIC)\d+|mlx\d+_\d+)");
  return kEndpoint.full_match(s);
}

/// A matrix cell or endpoint name at the start of `s`: its length, or 0.
std::size_t vocabulary_prefix(std::string_view s) {
  static const util::Regex kCell(R"(^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|GPU\d+|NIC\d+|mlx\d+_\d+))");
  util::Match m;
  return kCell.search(s, &m) ? m.length(0) : 0;
}

/// Cells that a paste ran together ("NODENODE", "NIC8NIC9", "SYS0-23") split by the matrix's
/// vocabulary; `split` counts the cells that were.
std::vector<std::string> cells(std::string_view line, int& split) {
  std::vector<std::string> out;
  for (const auto& raw : split_columns(line)) {
    if (raw.empty()) {
      if (!out.empty()) out.push_back(raw);  // an empty cell (before GPU NUMA ID) keeps its place
      continue;
    }
    std::string_view rest = raw;
    std::vector<std::string> parts;
    while (!rest.empty()) {
      const auto n = vocabulary_prefix(rest);
      if (n == 0 || n == rest.size()) {
        parts.emplace_back(rest);
        break;
      }
      parts.emplace_back(rest.substr(0, n));
      rest = rest.substr(n);
    }
    split += parts.size() > 1;
    out.insert(out.end(), parts.begin(), parts.end());
  }
  return out;
}

/// A line whose tabs a paste expanded to spaces (8-column stops), with the tabs put back: a run of
/// spaces that crosses n tab stops is n tabs, so an empty cell ("NODE\t\t1") is seen again.
std::string retab(std::string_view line) {
  std::string out;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] != ' ') {
      out += line[i++];
      continue;
    }
    std::size_t n = i;
    while (n < line.size() && line[n] == ' ') ++n;
    if (n == line.size()) break;
    const std::size_t tabs = n / 8 - i / 8;
    if (tabs == 0 || (n - i == 1 && n % 8 != 0))
      out.append(n - i, ' ');  // a space inside a cell ("CPU Affinity", " X ")
    else
      out.append(tabs, '\t');
    i = n;
  }
  return out;
}

/// The lines with their tabs put back, where none has a tab and the header then still reads as the
/// same columns; else the lines as they are.
std::vector<std::string> with_tabs(const std::vector<std::string>& lines) {
  for (const auto& l : lines)
    if (l.find('\t') != std::string::npos) return lines;
  for (const auto& l : lines) {
    auto c = split_columns(l);
    if (c.empty() || c[0] != "GPU0") continue;
    auto t = split_columns(retab(l));
    t.erase(std::remove(t.begin(), t.end(), std::string()), t.end());
    if (t != c) return lines;
    std::vector<std::string> out;
    for (const auto& x : lines) out.push_back(retab(x));
    return out;
  }
  return lines;
}

}  // namespace

Snapshot nvidia_smi_topo(const Capture& cap) {
  Snapshot s;
  std::vector<std::string> endpoints, extra;
  int split = 0;
  std::vector<std::string> unreadable;
  // An empty cell (CPU Affinity under a Slurm cgroup) leaves no mark once tabs became spaces.
  for (const auto& line : with_tabs(cap.lines)) {
    const auto c = cells(line, split);
    if (c.empty()) continue;
    if (endpoints.empty()) {
      if (c[0] != "GPU0") continue;
      for (const auto& h : c) (is_endpoint(h) ? endpoints : extra).push_back(h);
      continue;
    }
    if (starts_with(trim(line), "Legend")) break;
    const auto row_at = std::find(endpoints.begin(), endpoints.end(), c[0]);
    if (row_at == endpoints.end()) continue;
    const std::size_t r = static_cast<std::size_t>(row_at - endpoints.begin());
    // A row is read only where its cells line up: its own cell is X and every link cell is one of
    // the matrix's words; otherwise its links and affinity would go to the wrong endpoints.
    bool aligned = c.size() > r + 1 && c[r + 1] == "X";
    for (std::size_t k = 1; aligned && k <= endpoints.size() && k < c.size(); ++k)
      aligned = vocabulary_prefix(c[k]) == c[k].size() && !starts_with(c[k], "GPU") && !starts_with(c[k], "NIC");
    if (!aligned) {
      unreadable.push_back(c[0]);
      continue;
    }
    const std::size_t links = std::min(endpoints.size(), c.size() - 1);
    for (std::size_t k = r + 1; k < links; ++k) {
      if (c[k + 1] == "X" || c[k + 1].empty()) continue;
      s.topology.links.push_back(TopoLink{endpoints[r], endpoints[k], c[k + 1], {}, {}, {}, {}});
    }
    if (!starts_with(c[0], "GPU")) continue;
    const std::string index = c[0].substr(3);
    if (index.empty() || index.size() > 9 || index.find_first_not_of("0123456789") != std::string::npos) continue;
    DeviceState& d = device_at(s.devices, std::stoi(index));
    d.vendor = Vendor::nvidia;
    std::vector<std::string> tail;
    for (std::size_t k = endpoints.size() + 1; k < c.size(); ++k) tail.push_back(c[k]);
    // nvidia-smi prints an empty cell before GPU NUMA ID (and some pastes trailing tabs): drop the
    // empty cells beyond the header's count from the right, so that an empty CPU Affinity keeps its place.
    for (std::size_t k = tail.size(); k-- > 1 && tail.size() > extra.size();)
      if (tail[k].empty()) tail.erase(tail.begin() + static_cast<std::ptrdiff_t>(k));
    while (!tail.empty() && tail.back().empty()) tail.pop_back();
    if (c.size() < endpoints.size() + 1 || tail.size() < std::min<std::size_t>(2, extra.size())) {
      s.warnings.push_back("nvidia-smi topo -m: the row of " + c[0] + " is cut short; its affinity is not read");
      continue;
    }
    for (std::size_t k = 0; k < tail.size() && k < extra.size(); ++k) {
      if (extra[k] == "CPU Affinity")
        d.cpu_affinity = text_value(tail[k]);
      else if (extra[k] == "NUMA Affinity" && tail[k].find_first_not_of("0123456789") == std::string::npos)
        d.numa_node = parse_whole(tail[k]);
    }
  }
  if (split > 0)
    s.warnings.push_back(fmt::format("nvidia-smi topo -m: {} cells had run together (as 'NODENODE') and were split by "
                                     "the matrix's words",
                                     split));
  if (!unreadable.empty())
    s.warnings.push_back(fmt::format("nvidia-smi topo -m: the rows of {} do not line up with the header (their own "
                                     "cell is not X, or a link cell is not a link); their links and affinity are not "
                                     "read",
                                     fmt::join(unreadable, ", ")));
  if (endpoints.empty()) s.warnings.push_back("nvidia-smi topo -m: no 'GPU0 ...' header row found");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
