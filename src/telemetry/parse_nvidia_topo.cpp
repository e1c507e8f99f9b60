// nvidia-smi topo -m: a matrix of GPUs and NICs (X, NV#, PIX, PXB, PHB, NODE, SYS) followed by
// CPU Affinity, NUMA Affinity and GPU NUMA ID. Cells are tab-separated as printed (with an empty
// cell before GPU NUMA ID) or space-separated when pasted through a web page; rows of NICs stop
// after the links; a paste may cut the last row short.
#include <algorithm>
#include <regex>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

bool is_endpoint(const std::string& s) {
  static const std::regex kEndpoint(R"((GPU|NIC)\d+|mlx\d+_\d+)");
  return std::regex_match(s, kEndpoint);
}

std::vector<std::string> cells(std::string_view line) {
  auto c = split_columns(line);
  while (!c.empty() && c.front().empty()) c.erase(c.begin());
  return c;
}

}  // namespace

Snapshot nvidia_smi_topo(const Capture& cap) {
  Snapshot s;
  std::vector<std::string> endpoints, extra;
  for (const auto& line : cap.lines) {
    const auto c = cells(line);
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
    const std::size_t links = std::min(endpoints.size(), c.size() - 1);
    for (std::size_t k = r + 1; k < links; ++k) {
      if (c[k + 1] == "X" || c[k + 1].empty()) continue;
      s.topology.links.push_back(TopoLink{endpoints[r], endpoints[k], c[k + 1], {}, {}, {}, {}});
    }
    if (!starts_with(c[0], "GPU")) continue;
    DeviceState& d = device_at(s.devices, std::stoi(c[0].substr(3)));
    d.vendor = Vendor::nvidia;
    std::vector<std::string> tail;
    for (std::size_t k = endpoints.size() + 1; k < c.size(); ++k)
      if (!c[k].empty()) tail.push_back(c[k]);
    if (c.size() < endpoints.size() + 1 || tail.size() < std::min<std::size_t>(2, extra.size())) {
      s.warnings.push_back("nvidia-smi topo -m: the row of " + c[0] + " is cut short; its affinity is not read");
      continue;
    }
    for (std::size_t k = 0; k < tail.size() && k < extra.size(); ++k) {
      if (extra[k] == "CPU Affinity")
        d.cpu_affinity = text_value(tail[k]);
      else if (extra[k] == "NUMA Affinity" && tail[k].find_first_not_of("0123456789") == std::string::npos)
        d.numa_node = parse_int(tail[k]);
    }
  }
  if (endpoints.empty()) s.warnings.push_back("nvidia-smi topo -m: no 'GPU0 ...' header row found");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
