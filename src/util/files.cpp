#include "util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace dcukit::util {

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{fmt::format("cannot read {}: {}", path, std::strerror(errno))};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status write_file(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Error{fmt::format("cannot write {}: {}", path, std::strerror(errno))};
    out << content;
    out.flush();
    if (!out) return Error{fmt::format("cannot write {}: {}", path, std::strerror(errno))};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return Error{fmt::format("cannot write {}: {}", path, why)};
  }
  return {};
}

} // namespace dcukit::util
