// The tables of a bench report, shared by the text and Markdown renderers.
#include <fmt/format.h>
#include <set>

#include "bench/render.h"
#include "core/units.h"

namespace dcukit::bench {
namespace {

using core::Align;

std::string pct(const Measurement& m) {
  auto p = m.percent_of_peak();
  return p ? fmt::format("{:.1f}%", *p) : "-";
}

std::string status(const Measurement& m) {
  if (m.outcome == Outcome::ok) return "ok";
  return fmt::format("{}: {}", to_string(m.outcome), m.reason);
}

std::string millis(const Measurement& m, double v) { return m.samples_ms.empty() ? "-" : fmt::format("{:.4g}", v); }

std::string rate(const Measurement& m) {
  if (m.outcome != Outcome::ok) return "-";
  if (m.rate_unit == "B/s") return fmt::format("{:.1f}", m.rate / 1e9);
  if (m.rate_unit == "us") return fmt::format("{:.2f}", m.rate);
  return fmt::format("{:.1f}", m.rate / 1e12);
}

void add_notes(core::Table& t, const std::vector<const Measurement*>& ms) {
  std::set<std::string> seen;
  for (const auto* m : ms)
    if (!m->peak_note.empty() && seen.insert(m->peak_note).second) t.notes.push_back(m->peak_note);
}

core::Table gemm_table(const std::vector<const Measurement*>& ms) {
  core::Table t{"GEMM (C = A·B, square N, 2·N³ per run)",
                {{"precision", Align::left}, {"N"}, {"median ms"}, {"min ms"}, {"max ms"}, {"TFLOPS"}, {"% peak"}, {"status", Align::left}}};
  for (const auto* m : ms)
    t.add_row({m->param("precision").empty() ? m->name : m->param("precision"), m->param("n").empty() ? "-" : m->param("n"),
               millis(*m, m->time_ms.median), millis(*m, m->time_ms.min), millis(*m, m->time_ms.max), rate(*m), pct(*m), status(*m)});
  add_notes(t, ms);
  t.notes.push_back("TFLOPS at the median time; int8 rows are TOPS. Each row's output was checked against a float64 reference.");
  return t;
}

core::Table memory_table(const std::vector<const Measurement*>& ms) {
  core::Table t{"Device memory (bytes read + written)",
                {{"kernel", Align::left}, {"type", Align::left}, {"array"}, {"median ms"}, {"GB/s"}, {"% peak"}, {"status", Align::left}}};
  for (const auto* m : ms) {
    const std::string bytes = m->param("array_bytes");
    t.add_row({m->param("kernel").empty() ? m->name : m->param("kernel"), m->param("type"),
               bytes.empty() ? "-" : core::format_bytes(std::stoull(bytes)), millis(*m, m->time_ms.median), rate(*m), pct(*m), status(*m)});
  }
  add_notes(t, ms);
  t.notes.push_back("copy, scale, add, triad, dot as BabelStream defines them (2, 2, 3, 3, 2 arrays touched); d2d memcpy counts 2x its size.");
  return t;
}

core::Table transfer_table(const std::vector<const Measurement*>& ms) {
  core::Table t{"Host/device transfers",
                {{"direction", Align::left}, {"memory", Align::left}, {"node"}, {"size"}, {"median ms"}, {"GB/s"}, {"% link"}, {"status", Align::left}}};
  for (const auto* m : ms) {
    const std::string node = m->param("numa_node");
    const std::string bytes = m->param("bytes");
    t.add_row({m->param("direction").empty() ? m->name : m->param("direction"), m->param("memory"), node.empty() || node == "-1" ? "-" : node,
               bytes.empty() ? "-" : core::format_bytes(std::stoull(bytes)), millis(*m, m->time_ms.median), rate(*m), pct(*m), status(*m)});
  }
  add_notes(t, ms);
  t.notes.push_back("H2D+D2H runs both directions at once and counts both; % link compares with the PCIe rate per direction (x2 for both).");
  return t;
}

core::Table latency_table(const std::vector<const Measurement*>& ms) {
  core::Table t{"Launch latency", {{"what", Align::left}, {"median us"}, {"p99 us"}, {"min us"}, {"status", Align::left}}};
  for (const auto* m : ms)
    t.add_row({m->name, millis(*m, m->time_ms.median * 1000), millis(*m, m->time_ms.p99 * 1000), millis(*m, m->time_ms.min * 1000), status(*m)});
  return t;
}

} // namespace

std::vector<core::Table> result_tables(const DeviceReport& d) {
  std::vector<core::Table> out;
  for (const char* key : {"gemm", "memory", "transfer", "latency"}) {
    std::vector<const Measurement*> ms;
    for (const auto& m : d.results)
      if (m.benchmark == key) ms.push_back(&m);
    if (ms.empty()) continue;
    const std::string k = key;
    out.push_back(k == "gemm" ? gemm_table(ms) : k == "memory" ? memory_table(ms) : k == "transfer" ? transfer_table(ms) : latency_table(ms));
  }
  return out;
}

std::vector<std::string> device_summary(const DeviceReport& d) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("Device {}: {} ({}), {} memory, {} free, {} compute units, warp {}", d.info.index, d.info.name, d.info.arch,
                              core::format_bytes(d.info.total_memory), core::format_bytes(d.free_memory), d.info.compute_units,
                              d.info.warp_size));
  std::string link = d.pcie_gen > 0 ? fmt::format("PCIe Gen{} x{}", d.pcie_gen, d.pcie_width) : "PCIe link not visible in sysfs";
  lines.push_back(fmt::format("  bus {}{}, {}, NUMA node {}", d.info.pci_bus_id.empty() ? "-" : d.info.pci_bus_id,
                              d.pci_id.empty() ? "" : " [" + d.pci_id + "]", link, d.numa_node >= 0 ? std::to_string(d.numa_node) : "unknown"));
  if (!d.spec_key.empty()) lines.push_back(fmt::format("  peaks: {} ({})", d.spec_name, d.spec_source));
  else lines.push_back("  peaks: " + d.peak_note);
  return lines;
}

} // namespace dcukit::bench
