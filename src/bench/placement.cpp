#include "bench/placement.h"

#include <unistd.h>

#include "core/peaks.h"

namespace dcukit::bench {
namespace {

std::map<std::string, std::string> params_text(const Measurement& m) {
  std::map<std::string, std::string> out;
  for (const auto& p : m.params) {
    if (const auto* s = std::get_if<std::string>(&p.value)) out[p.key] = *s;
    else if (const auto* i = std::get_if<std::int64_t>(&p.value)) out[p.key] = std::to_string(*i);
    else if (const auto* d = std::get_if<double>(&p.value)) out[p.key] = std::to_string(*d);
  }
  return out;
}

/// The run's own facts about `d` and the case: its link as trained and as published, the NUMA
/// nodes of the card and of the host memory a transfer used.
core::RunFacts facts_of(const DeviceReport& d, const Measurement& m) {
  core::RunFacts f;
  f.pcie_gen = d.pcie_gen;
  f.pcie_width = d.pcie_width;
  if (const auto* spec = core::PeakTable::builtin().find(d.spec_key)) {
    f.pcie_gen_max = spec->pcie_gen;
    f.pcie_width_max = spec->pcie_width;
  }
  f.device_numa = d.numa_node;
  if (const auto n = m.integer("numa_node")) f.memory_numa = static_cast<int>(*n);
  if (const auto n = m.integer("device_numa_node")) f.device_numa = static_cast<int>(*n);
  return f;
}

/// What a telemetry reading says about `d`: clocks, throttle reasons, other processes, the
/// link's maximum where the peak data has none.
void add_reading(core::RunFacts& f, const DeviceReport& d, const telemetry::Snapshot& reading) {
  if (d.info.pci_bus_id.empty()) return;
  for (const auto& s : reading.devices) {
    if (!s.bus_id || *s.bus_id != d.info.pci_bus_id) continue;
    if (s.sclk_mhz) f.clock_mhz = static_cast<double>(*s.sclk_mhz);
    if (s.sclk_max_mhz) f.clock_max_mhz = static_cast<double>(*s.sclk_max_mhz);
    if (s.throttle_reasons) f.throttle_reasons = *s.throttle_reasons;
    if (s.processes) {
      f.other_processes = 0;
      for (const auto& p : *s.processes) f.other_processes += p.pid != ::getpid();
    }
    if (f.pcie_gen_max == 0 && s.pcie_gen_max) f.pcie_gen_max = static_cast<int>(*s.pcie_gen_max);
    if (f.pcie_width_max == 0 && s.pcie_width_max) f.pcie_width_max = static_cast<int>(*s.pcie_width_max);
  }
}

core::Placed place_with(const DeviceReport& d, const Measurement& m, const telemetry::Snapshot* reading) {
  if (m.outcome != Outcome::ok || m.rate <= 0 || m.rate_unit == RateUnit::microseconds ||
      m.rate_unit == RateUnit::none) {
    core::Placed none;
    none.source = "not a measured rate";
    return none;
  }
  core::Placed p = core::place(d.pci_id, d.spec_key, m.benchmark, params_text(m), m.rate);
  if (p.placement == core::Placement::low) {
    auto facts = facts_of(d, m);
    if (reading) add_reading(facts, d, *reading);
    p.causes = core::likely_causes(m.benchmark, facts);
  }
  return p;
}

}  // namespace

core::Placed place(const DeviceReport& d, const Measurement& m) { return place_with(d, m, nullptr); }

void place_all(Report& report) {
  for (auto& d : report.devices)
    for (auto& m : d.results) m.placed = place(d, m);
}

void explain_low(Report& report, const telemetry::Snapshot& reading) {
  for (auto& d : report.devices)
    for (auto& m : d.results)
      if (m.placed.placement == core::Placement::low) m.placed = place_with(d, m, &reading);
}

bool any_low(const Report& report) {
  for (const auto& d : report.devices)
    for (const auto& m : d.results)
      if (m.placed.placement == core::Placement::low) return true;
  return false;
}

}  // namespace dcukit::bench
