// Text and Markdown renderings of a bench Report.
#include <fmt/format.h>

#include "bench/render.h"
#include "core/units.h"

namespace dcukit::bench {

std::string render_text(const Report& r) {
  std::string out = fmt::format("dcukit {} bench ({} suite) on {}, backend {}\n", r.dcukit_version, r.suite, r.host.hostname, r.backend);
  for (const auto& n : r.notes) out += fmt::format("note: {}\n", n);
  for (const auto& d : r.devices) {
    out += "\n";
    for (const auto& l : device_summary(d)) out += fmt::format("{}\n", l);
    for (const auto& t : result_tables(d)) out += fmt::format("\n{}", core::render_text(t));
  }
  for (const auto& e : r.errors) out += fmt::format("error: {}\n", e);
  return out;
}

std::string render_markdown(const Report& r) {
  std::string out = fmt::format("# dcukit bench: {}\n\n", r.devices.empty() ? r.backend : r.devices.front().info.name);
  core::Table about{"Run", {{"what", core::Align::left}, {"value", core::Align::left}}};
  about.add_row({"command", "`" + r.command + "`"});
  about.add_row({"started", r.started_at});
  about.add_row({"dcukit", r.dcukit_version});
  about.add_row({"suite", r.suite});
  about.add_row({"backend", r.backend});
  about.add_row({"host", fmt::format("{}: {}, kernel {}", r.host.hostname, r.host.os, r.host.kernel)});
  about.add_row({"CPU", fmt::format("{} ({} logical CPUs, {} NUMA node(s), {} memory)", r.host.cpu, r.host.cpus, r.host.numa_nodes,
                                    core::format_bytes(r.host.memory_bytes))});
  for (const auto& [k, v] : r.versions) about.add_row({k, v});
  out += core::render_markdown(about, 2) + "\n";
  for (const auto& n : r.notes) out += "> " + n + "\n\n";
  for (const auto& d : r.devices) {
    out += fmt::format("## Device {}: {}\n\n", d.info.index, d.info.name);
    for (const auto& l : device_summary(d)) out += "    " + l + "\n";
    out += "\n";
    for (const auto& t : result_tables(d)) out += core::render_markdown(t, 3) + "\n";
  }
  if (!r.errors.empty()) {
    out += "## Errors\n\n";
    for (const auto& e : r.errors) out += "- " + e + "\n";
  }
  return out;
}

} // namespace dcukit::bench
