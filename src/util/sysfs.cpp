#include "util/sysfs.h"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace dcukit::util {
namespace {

int to_int(const std::optional<std::string>& s, int fallback) {
  if (!s) return fallback;
  try {
    return std::stoi(*s);
  } catch (...) {
    return fallback;
  }
}

std::string hex4(const std::optional<std::string>& s) {
  if (!s) return {};
  std::string v = *s;
  if (v.rfind("0x", 0) == 0) v = v.substr(2);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return v;
}

} // namespace

std::optional<std::string> read_first_line(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

PciLink read_pci_link(const std::string& bus_id, const Root& root) {
  PciLink link;
  if (bus_id.empty()) return link;
  const std::string dir = "/sys/bus/pci/devices/" + bus_id + "/";
  link.numa_node = to_int(root.first_line(dir + "numa_node"), -1);
  link.current_speed = root.first_line(dir + "current_link_speed").value_or("");
  link.current_width = to_int(root.first_line(dir + "current_link_width"), 0);
  link.max_speed = root.first_line(dir + "max_link_speed").value_or("");
  link.max_width = to_int(root.first_line(dir + "max_link_width"), 0);
  const std::string v = hex4(root.first_line(dir + "vendor")), d = hex4(root.first_line(dir + "device"));
  if (!v.empty() && !d.empty()) link.vendor_device = v + ":" + d;
  return link;
}

} // namespace dcukit::util
