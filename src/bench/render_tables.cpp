// The tables of a bench report, shared by the text and Markdown renderers: each benchmark's
// TableSpec laid out over its measurements, and the device header.
#include <fmt/format.h>

#include "bench/benchmark.h"
#include "bench/group.h"
#include "bench/render.h"
#include "core/units.h"

namespace dcukit::bench {

namespace {

// One table set a benchmark of `benchmarks` that has measurements in `results`, in their order.
template <class Benchmarks>
std::vector<core::Table> tables_of(const Benchmarks& benchmarks, const std::vector<Measurement>& results) {
  std::vector<core::Table> out;
  for (const auto& bench : benchmarks) {
    std::vector<const Measurement*> ms;
    for (const auto& m : results)
      if (m.benchmark == bench->key()) ms.push_back(&m);
    if (!ms.empty())
      for (auto& t : make_tables(bench->table(), ms)) out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::vector<core::Table> result_tables(const DeviceReport& d) {
  return tables_of(all_benchmarks(), d.results);
}

std::vector<core::Table> group_tables(const Report& r) {
  return tables_of(all_group_benchmarks(), r.group);
}

std::vector<std::string> device_summary(const DeviceReport& d) {
  std::vector<std::string> lines;
  if (d.rank >= 0) lines.push_back(fmt::format("Rank {} on {}:", d.rank, d.host));
  lines.push_back(fmt::format("Device {}: {} ({}), {} memory, {} free, {} compute units, warp {}", d.info.index,
                              d.info.name, d.info.arch, core::format_bytes(d.info.total_memory),
                              core::format_bytes(d.free_memory), d.info.compute_units, d.info.warp_size));
  std::string link =
      d.pcie_gen > 0 ? fmt::format("PCIe Gen{} x{}", d.pcie_gen, d.pcie_width) : "PCIe link not visible in sysfs";
  lines.push_back(fmt::format("  bus {}{}, {}, NUMA node {}", d.info.pci_bus_id.empty() ? "-" : d.info.pci_bus_id,
                              d.pci_id.empty() ? "" : " [" + d.pci_id + "]", link,
                              d.numa_node >= 0 ? std::to_string(d.numa_node) : "unknown"));
  if (!d.spec_key.empty())
    lines.push_back(fmt::format("  peaks: {} ({})", d.spec_name, d.spec_source));
  else
    lines.push_back("  peaks: " + d.peak_note);
  return lines;
}

}  // namespace dcukit::bench
