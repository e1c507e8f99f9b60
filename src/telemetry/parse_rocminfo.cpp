// rocminfo: HSA agents between "*******" rules; the GPU agents ("Device Type: GPU", or "DCU" on
// Hygon's build) carry the ISA (Name: gfx928), the marketing name, the UUID, the chip id, the
// BDFID, compute units, the top clock and the VRAM pool. The first line says which kernel
// module is loaded ("ROCk module version 6.8.5 is loaded", "hygon module is loaded").
#include <map>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

struct Agent {
  std::map<std::string, std::string> top;  // the agent's own "Key: value" lines (first of each)
  std::optional<std::uint64_t> pool_kb;    // the first GLOBAL pool's size
};

// "29857(0x74a1)" -> "0x74a1"
std::optional<std::string> chip_id(const std::string& v) {
  const auto open = v.find("(0x");
  if (open == std::string::npos) return std::nullopt;
  return pci_id(v.substr(open + 1, v.find(')', open) - open - 1));
}

}  // namespace

Snapshot rocminfo(const Capture& cap) {
  Snapshot s;
  std::vector<Agent> agents;
  bool in_agent = false, in_pool = false;
  std::string pool_segment;
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (starts_with(l, "Agent ") && l.find(':') == std::string_view::npos) {
      agents.emplace_back();
      in_agent = true;
      in_pool = false;
      continue;
    }
    if (!in_agent) continue;
    const auto colon = l.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key(trim(l.substr(0, colon)));
    const std::string value(trim(l.substr(colon + 1)));
    if (key == "Pool Info") in_pool = true;
    if (key == "ISA Info") in_pool = false;
    if (in_pool) {
      if (key == "Segment") pool_segment = value;
      if (key == "Size" && starts_with(pool_segment, "GLOBAL") && !agents.back().pool_kb)
        agents.back().pool_kb = parse_bytes(value.substr(0, value.find('(')), "B");  // in KB
      continue;
    }
    agents.back().top.emplace(key, value);
  }
  std::optional<std::string> module_version;
  std::string module;
  if (!cap.lines.empty()) {
    const auto words = split_ws(cap.lines.front());  // "ROCk module version 6.8.5 is loaded"
    if (words.size() >= 3 && words[1] == "module" && words.back() == "loaded") {
      module = words[0];
      for (std::size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] == "version") module_version = words[i + 1];
    }
  }
  int index = 0;
  for (const auto& a : agents) {
    const auto type = a.top.find("Device Type");
    if (type == a.top.end() || (type->second != "GPU" && type->second != "DCU")) continue;
    DeviceState& d = device_at(s.devices, index++);
    const auto get = [&](const char* k) -> std::optional<std::string> {
      auto it = a.top.find(k);
      return it == a.top.end() ? std::nullopt : text_value(it->second);
    };
    d.arch = get("Name");
    d.name = get("Marketing Name");
    d.uuid = get("Uuid");
    if (auto v = get("Vendor Name")) d.vendor = vendor_from_text(*v);
    if (type->second == "DCU") d.vendor = Vendor::hygon;
    if (auto v = get("Chip ID")) d.device_id = chip_id(*v);
    if (auto v = get("BDFID")) {
      if (auto n = parse_whole(*v)) d.bus_id = bus_id_from_bdfid(static_cast<std::uint64_t>(*n));
    }
    if (auto v = get("Compute Unit")) d.compute_units = parse_whole(*v);
    if (auto v = get("Max Clock Freq. (MHz)")) d.sclk_max_mhz = parse_whole(*v);
    if (a.pool_kb) d.memory_total_bytes = *a.pool_kb * 1024;
    if (module_version && d.vendor == Vendor::amd) d.driver_version = module_version;
  }
  if (!module.empty()) s.facts.push_back({"kernel_module", module + (module_version ? " " + *module_version : "")});
  if (s.devices.empty()) s.warnings.push_back("rocminfo: no GPU agent listed (is the kernel module loaded?)");
  finish(s, SourceKind::rocminfo);
  return s;
}

}  // namespace dcukit::telemetry::parse
