// The JSON rendering of a bench Report: the run_info header first, then every sample, the
// device's properties and the versions. Parameters keep their types: sizes are numbers.
#include <nlohmann/json.hpp>

#include "bench/render.h"

namespace dcukit::bench {
namespace {

using json = nlohmann::ordered_json;

json summary_json(const core::Summary& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"median", s.median}, {"stddev", s.stddev}, {"min", s.min},
          {"max", s.max},     {"p90", s.p90},   {"p95", s.p95},       {"p99", s.p99}};
}

json params_json(const std::vector<Param>& params) {
  json out = json::object();
  for (const auto& p : params) std::visit([&](const auto& v) { out[p.key] = v; }, p.value);
  return out;
}

json measurement_json(const Measurement& m) {
  json j = {{"benchmark", m.benchmark},
            {"name", m.name},
            {"params", params_json(m.params)},
            {"outcome", to_string(m.outcome)},
            {"reason", m.reason},
            {"work", m.work},
            {"rate", m.rate},
            {"rate_unit", std::string(to_string(m.rate_unit))},
            {"time_ms", summary_json(m.time_ms)},
            {"samples_ms", m.samples_ms},
            {"check", m.check},
            {"peak_key", m.peak_key}};
  j["peak"] = m.peak ? json(*m.peak) : json(nullptr);
  const auto pct = m.percent_of_peak();
  j["percent_of_peak"] = pct ? json(*pct) : json(nullptr);
  j["peak_note"] = m.peak_note;
  const auto& p = m.placed;
  json placed = {{"placement", std::string(core::to_string(p.placement))}, {"sku", p.sku}, {"source", p.source}};
  if (p.placement != core::Placement::no_reference) {
    placed["expected"] = p.expected;
    placed["floor"] = p.floor;
    placed["ratio"] = p.ratio();
  }
  if (!p.causes.empty()) placed["causes"] = p.causes;
  j["expected"] = std::move(placed);
  return j;
}

json device_json(const DeviceReport& d) {
  const auto& i = d.info;
  json results = json::array();
  for (const auto& m : d.results) results.push_back(measurement_json(m));
  json out = {{"index", i.index},
          {"name", i.name},
          {"arch", i.arch},
          {"pci_bus_id", i.pci_bus_id},
          {"pci_id", d.pci_id},
          {"total_memory", i.total_memory},
          {"free_memory", d.free_memory},
          {"compute_units", i.compute_units},
          {"warp_size", i.warp_size},
          {"clock_mhz", i.clock_mhz},
          {"memory_clock_mhz", i.memory_clock_mhz},
          {"memory_bus_width_bits", i.memory_bus_width_bits},
          {"l2_cache_bytes", i.l2_cache_bytes},
          {"numa_node", d.numa_node},
          {"pcie_gen", d.pcie_gen},
          {"pcie_width", d.pcie_width},
          {"peak_data", {{"key", d.spec_key}, {"name", d.spec_name}, {"source", d.spec_source}, {"note", d.peak_note}}},
          {"results", results}};
  if (d.rank >= 0) {
    out["rank"] = d.rank;
    out["host"] = d.host;
  }
  return out;
}

}  // namespace

nlohmann::ordered_json to_json(const Report& r) {
  json versions = json::object();
  for (const auto& [k, v] : r.versions) versions[k] = v;
  json devices = json::array();
  for (const auto& d : r.devices) devices.push_back(device_json(d));
  json out = core::report_head(r.run_info, 1);
  out["suite"] = r.suite;
  out["ok"] = r.ok();
  out["interrupted"] = r.interrupted;
  out["backend"] = std::string(device::to_string(r.backend));
  out["versions"] = versions;
  out["notes"] = r.notes;
  out["errors"] = r.errors;
  out["devices"] = devices;
  json group = json::array();
  for (const auto& m : r.group) group.push_back(measurement_json(m));
  out["group"] = group;
  return out;
}

}  // namespace dcukit::bench
