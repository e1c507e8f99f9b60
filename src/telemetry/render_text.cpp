// The text view: one row a device, like `hy-smi` and `nvidia-smi`'s summary, then what else the
// reading holds.
#include <fmt/format.h>

#include <map>
#include <set>

#include "core/run_info.h"
#include "core/table.h"
#include "core/units.h"
#include "telemetry/links.h"
#include "telemetry/render.h"

namespace dcukit::telemetry {
namespace {

constexpr const char* kUnknown = "-";

template <class T>
std::string num(const std::optional<T>& v, const char* spec = "{}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : kUnknown;
}

std::string bytes(const std::optional<std::uint64_t>& v) {
  return v ? core::format_bytes(*v) : kUnknown;
}

std::string link(const std::optional<std::int64_t>& gen, const std::optional<std::int64_t>& width) {
  if (!gen && !width) return kUnknown;
  return fmt::format("Gen{} x{}", gen ? std::to_string(*gen) : "?", width ? std::to_string(*width) : "?");
}

std::string pcie(const DeviceState& d) {
  const std::string now = link(d.pcie_gen, d.pcie_width), max = link(d.pcie_gen_max, d.pcie_width_max);
  if (max == kUnknown || max == now) return now;
  return now + " (max " + max + ")";
}

core::Table device_table(const Snapshot& s) {
  core::Table t;
  t.columns = {{"GPU"},
               {"Name", core::Align::left},
               {"Bus", core::Align::left},
               {"NUMA", core::Align::right, true},
               {"Temp C"},
               {"Power W"},
               {"Cap W", core::Align::right, true},
               {"Busy %"},
               {"VRAM used"},
               {"VRAM total", core::Align::right, true},
               {"VRAM %"},
               {"SCLK MHz", core::Align::right, true},
               {"MCLK MHz", core::Align::right, true},
               {"PCIe", core::Align::left}};
  for (const auto& d : s.devices)
    t.add_row({std::to_string(d.index), d.name.value_or(kUnknown), d.bus_id.value_or(kUnknown), num(d.numa_node),
               num(d.temperature_c, "{:.0f}"), num(d.power_w, "{:.0f}"), num(d.power_cap_w, "{:.0f}"),
               num(d.busy_percent, "{:.0f}"), bytes(d.memory_used_bytes), bytes(d.memory_total_bytes),
               num(d.memory_used_percent, "{:.0f}"), num(d.sclk_mhz), num(d.mclk_mhz), pcie(d)});
  return t;
}

core::Table processes(const Snapshot& s) {
  core::Table t;
  t.title = "Processes";
  t.columns = {{"GPU"}, {"PID"}, {"Name", core::Align::left}, {"Memory"}};
  for (const auto& d : s.devices)
    if (d.processes)
      for (const auto& p : *d.processes)
        t.add_row({std::to_string(d.index), std::to_string(p.pid), p.name.value_or(kUnknown), bytes(p.memory_bytes)});
  return t;
}

core::Table topology(const Snapshot& s) {
  core::Table t;
  t.title = "Links";
  t.columns = {
      {"A", core::Align::left}, {"B", core::Align::left}, {"Type", core::Align::left}, {"Hops"}, {"Weight"}, {"GB/s"},
      {"Notes", core::Align::left}};
  for (const auto& l : s.topology.links) {
    const auto notes = link_notes(l, "; ");
    t.add_row({l.a, l.b, l.type.value_or(kUnknown), num(l.hops), num(l.weight), num(l.bandwidth_gbps, "{:.1f}"),
               notes.empty() ? "-" : notes});
  }
  return t;
}

core::Table checks(const Snapshot& s) {
  core::Table t;
  t.title = "Checks";
  t.columns = {{"Category", core::Align::left},
               {"Check", core::Align::left},
               {"Status", core::Align::left},
               {"Result", core::Align::left}};
  for (const auto& c : s.checks) {
    t.add_row({c.category, c.name, std::string(to_string(c.status)), c.result});
    if (!c.detail.empty()) t.notes.push_back(c.name + ": " + c.detail);
  }
  return t;
}

std::string attribution(const Snapshot& s) {
  std::map<SourceKind, std::set<Field>> by_source;
  for (const auto& d : s.devices)
    for (const auto& [f, src] : d.sources) by_source[src].insert(f);
  std::string out;
  for (const auto& [src, fields] : by_source) {
    std::string names;
    for (auto f : fields) names += (names.empty() ? "" : ", ") + std::string(to_string(f));
    out += fmt::format("  {}: {}\n", to_string(src), names);
  }
  return out.empty() ? "" : "\nFigures by source:\n" + out;
}

/// The report in either form: the title, each table with rows, facts and attribution.
std::string render(const Snapshot& s, std::string (*table)(const core::Table&)) {
  std::string title = s.source == "file" ? fmt::format("{} ({}), read {}", s.path, s.format, s.timestamp)
                                         : fmt::format("live, {}", s.timestamp);
  if (s.source != "file") {
    std::string srcs;
    for (const auto& r : s.sources)
      srcs += fmt::format("{}{} {}", srcs.empty() ? "" : ", ", r.name, to_string(r.state));
    if (!srcs.empty()) title += " (" + srcs + ")";
  }
  std::string out = title + "\n";
  if (!s.devices.empty()) out += table(device_table(s));
  for (const core::Table& t : {processes(s), topology(s), checks(s)})
    if (!t.rows.empty()) out += "\n" + table(t);
  if (!s.facts.empty()) {
    out += "\nFacts:\n";
    for (const auto& f : s.facts) out += fmt::format("  {}: {}\n", f.key, f.value);
  }
  out += attribution(s);
  return out;
}

}  // namespace

std::string render_text(const Snapshot& s) {
  return render(s, core::render_text);
}

std::string render_markdown(const Snapshot& s) {
  return render(s, [](const core::Table& t) { return core::render_markdown(t); });
}

nlohmann::ordered_json to_json(const core::RunInfo& run_info, const Snapshot& s) {
  nlohmann::ordered_json out = core::report_head(run_info, 1);
  const nlohmann::ordered_json reading = to_json(s);  // named: items() must not outlive it
  for (const auto& [key, value] : reading.items()) out[key] = value;
  return out;
}

std::string render_warnings(const Snapshot& s) {
  std::string out;
  for (const auto& w : s.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace dcukit::telemetry
