#include "bench/placement.h"

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

}  // namespace

core::Placed place(const DeviceReport& d, const Measurement& m) {
  if (m.outcome != Outcome::ok || m.rate <= 0 || m.rate_unit == RateUnit::microseconds ||
      m.rate_unit == RateUnit::none) {
    core::Placed none;
    none.source = "not a measured rate";
    return none;
  }
  core::Placed p = core::place(d.pci_id, d.spec_key, m.benchmark, params_text(m), m.rate);
  if (p.placement == core::Placement::low) p.causes = core::likely_causes(m.benchmark, facts_of(d, m));
  return p;
}

void place_all(Report& report) {
  for (auto& d : report.devices)
    for (auto& m : d.results) m.placed = place(d, m);
}

}  // namespace dcukit::bench
