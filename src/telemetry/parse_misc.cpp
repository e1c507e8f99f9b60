// Files that are not a vendor tool's device view: gpustack-runtime's detector JSON (derived from
// the vendor tools and sysfs), `pip list`, version strings quoted from documents, and notes.
#include "telemetry/lenient_json.h"
#include "telemetry/parsers.h"
#include "util/json_text.h"

namespace dcukit::telemetry::parse {
namespace {

using ojson = nlohmann::ordered_json;

std::optional<std::string> str(const ojson& o, const char* k) {
  if (!o.contains(k)) return std::nullopt;
  const ojson& v = o[k];
  if (v.is_string()) return text_value(v.get<std::string>());
  if (v.is_number()) return util::json_text(v);
  return std::nullopt;
}

std::optional<double> num(const ojson& o, const char* k) {
  auto s = str(o, k);
  return s ? parse_double(*s) : std::nullopt;
}

}  // namespace

Snapshot gpustack_json(const Capture& cap) {
  Snapshot s;
  const LenientJson json = read_lenient_json(join_lines(cap.lines));
  for (const auto& top : json.values) {
    if (!top.is_array()) continue;
    for (const auto& g : top) {
      if (!g.is_object() || !g.contains("manufacturer")) continue;
      // A device's index: its position when there is none; an index no int holds is not a device.
      std::optional<std::int64_t> idx = static_cast<std::int64_t>(s.devices.size());
      if (const auto v = num(g, "index")) idx = whole_number(*v, 0, 1e6);
      if (!idx) continue;
      DeviceState& d = device_at(s.devices, static_cast<int>(*idx));
      if (auto v = str(g, "manufacturer")) d.vendor = parse_vendor(lower(*v));
      d.name = str(g, "name");
      d.uuid = str(g, "uuid");
      d.driver_version = str(g, "driver_version");
      d.arch = str(g, "compute_capability");
      if (auto v = num(g, "cores")) d.compute_units = whole_number(*v, 0, 1e9);
      d.busy_percent = num(g, "cores_utilization");
      if (auto v = num(g, "memory")) d.memory_total_bytes = to_bytes(*v, "MiB");
      if (auto v = num(g, "memory_used")) d.memory_used_bytes = to_bytes(*v, "MiB");
      d.memory_used_percent = num(g, "memory_utilization");
      d.temperature_c = num(g, "temperature");
      d.power_cap_w = num(g, "power");
      d.power_w = num(g, "power_used");
      if (g.contains("appendix") && g["appendix"].is_object()) {
        const ojson& a = g["appendix"];
        if (auto v = str(a, "bdf")) d.bus_id = normalize_bus_id(*v);
        if (auto v = str(a, "numa")) d.numa_node = parse_whole(*v);
      }
    }
  }
  for (const auto& p : json.problems) s.warnings.push_back("gpustack-runtime JSON: " + p);
  s.warnings.push_back(
      "gpustack-runtime detect output is derived from the vendor tools and sysfs by a third-party "
      "detector, not a vendor tool's own output");
  finish(s, SourceKind::gpustack_runtime);
  return s;
}

Snapshot pip_list(const Capture& cap) {
  Snapshot s;
  bool body = false;
  for (const auto& line : cap.lines) {
    if (starts_with(line, "---")) {
      body = true;
      continue;
    }
    const auto cols = split_ws(line);
    if (!body || cols.size() < 2) continue;
    s.facts.push_back({"python_package", cols[0] + " " + cols[1]});
  }
  s.warnings.push_back("pip list holds Python packages (" + std::to_string(s.facts.size()) +
                       " recorded as facts), no device state");
  return s;
}

Snapshot version_strings(const Capture& cap) {
  Snapshot s;
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (l.empty() || starts_with(l, "#")) continue;
    if (contains(l, "+das") || contains(lower(l), "dtk") || contains(l, ".whl") || contains(l, "rock-"))
      s.facts.push_back({"version_string", std::string(l)});
  }
  s.warnings.push_back("this file quotes version strings (wheel names, image tags, driver installers; " +
                       std::to_string(s.facts.size()) + " recorded as facts), no device state");
  return s;
}

Snapshot no_device_state(const Capture& cap, const std::string& what) {
  Snapshot s;
  s.warnings.push_back(cap.name + " holds no device state: " + what);
  return s;
}

}  // namespace dcukit::telemetry::parse
