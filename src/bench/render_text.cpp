// Text and Markdown renderings of a bench Report.
#include <fmt/format.h>

#include "bench/render.h"
#include "core/units.h"

namespace dcukit::bench {

std::string render_text(const Report& r) {
  std::string out = fmt::format("dcukit {} bench ({} suite) on {}, backend {}\n", r.run_info.version, r.suite,
                                r.run_info.host.hostname, device::to_string(r.backend));
  for (const auto& d : r.devices) {
    out += "\n";
    for (const auto& l : device_summary(d)) out += fmt::format("{}\n", l);
    for (const auto& t : result_tables(d)) out += fmt::format("\n{}", core::render_text(t));
  }
  if (const auto tables = group_tables(r); !tables.empty()) {
    out += fmt::format("\nAcross {} device(s)\n", r.devices.size());
    for (const auto& t : tables) out += fmt::format("\n{}", core::render_text(t));
  }
  for (const auto& e : r.errors) out += fmt::format("error: {}\n", e);
  return out;
}

std::string render_notes(const Report& r) {
  std::string out;
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string render_markdown(const Report& r) {
  const auto& info = r.run_info;
  std::string out = fmt::format("# dcukit bench: {}\n\n", r.devices.empty() ? std::string(device::to_string(r.backend))
                                                                            : r.devices.front().info.name);
  core::Table about{"Run", {{"what", core::Align::left}, {"value", core::Align::left}}, {}, {}};
  about.add_row({"command", "`" + info.command + "`"});
  about.add_row({"started", info.started_at});
  about.add_row({"dcukit", info.version});
  about.add_row({"suite", r.suite});
  about.add_row({"backend", std::string(device::to_string(r.backend))});
  about.add_row({"host", fmt::format("{}: {}, kernel {}", info.host.hostname, info.host.os, info.host.kernel)});
  about.add_row({"CPU", fmt::format("{} ({} logical CPUs, {} NUMA node(s), {} memory)", info.host.cpu, info.host.cpus,
                                    info.host.numa_nodes, core::format_bytes(info.host.memory_bytes))});
  for (const auto& [k, v] : r.versions) about.add_row({k, v});
  for (const auto& [k, v] : info.environment) about.add_row({"environment", fmt::format("`{}={}`", k, v)});
  out += core::render_markdown(about, 2) + "\n";
  for (const auto& n : r.notes) out += "> " + n + "\n\n";
  for (const auto& d : r.devices) {
    out += fmt::format("## Device {}: {}\n\n", d.info.index, d.info.name);
    for (const auto& l : device_summary(d)) out += "    " + l + "\n";
    out += "\n";
    for (const auto& t : result_tables(d)) out += core::render_markdown(t, 3) + "\n";
  }
  if (const auto tables = group_tables(r); !tables.empty()) {
    out += fmt::format("## Across {} device(s)\n\n", r.devices.size());
    for (const auto& t : tables) out += core::render_markdown(t, 3) + "\n";
  }
  if (!r.errors.empty()) {
    out += "## Errors\n\n";
    for (const auto& e : r.errors) out += "- " + e + "\n";
  }
  return out;
}

}  // namespace dcukit::bench
