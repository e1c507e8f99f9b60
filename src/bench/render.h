#pragma once
// Renderers for a bench Report: a text table for the terminal, a Markdown report for a wiki,
// JSON with every sample for programs. All read the same Report; the tables come from each
// benchmark's own TableSpec.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/types.h"
#include "core/table.h"
#include "util/result.h"

namespace dcukit::bench {

/// One table per benchmark that has results on this device, in the order the benchmarks run.
std::vector<core::Table> result_tables(const DeviceReport& device);

/// One table per group benchmark (p2p, collectives) that has results, in the order they run.
std::vector<core::Table> group_tables(const Report& report);

/// Device header lines: name, arch, memory, link, NUMA node, matched peak data.
std::vector<std::string> device_summary(const DeviceReport& device);

/// The whole report as terminal text.
std::string render_text(const Report& report);
/// The run's notes, one "note: ..." line each (diagnostics: the CLI prints them on stderr).
std::string render_notes(const Report& report);

/// The whole report as Markdown, with host, versions, environment and command.
std::string render_markdown(const Report& report);

/// The whole report as JSON with every sample, starting with the run_info object (keys in
/// the order written, so that run_info comes first).
nlohmann::ordered_json to_json(const Report& report);
/// Reads to_json's document back (a result file kept from another run or host); the error says
/// what is not a bench report. Figures and samples come back as written.
Result<Report> from_json(std::string_view text);

}  // namespace dcukit::bench
