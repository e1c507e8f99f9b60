#pragma once
// Renderers for a bench Report: a text table for the terminal, a Markdown report for a wiki,
// JSON with every sample for programs. All read the same Report.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "bench/result.h"
#include "core/table.h"

namespace dcukit::bench {

/// One table per benchmark that has results on this device (seed 000's tables).
std::vector<core::Table> result_tables(const DeviceReport& device);

/// Device header lines: name, arch, memory, link, NUMA node, matched peak data.
std::vector<std::string> device_summary(const DeviceReport& device);

/// The whole report as terminal text.
std::string render_text(const Report& report);

/// The whole report as Markdown, with host, versions and command.
std::string render_markdown(const Report& report);

/// The whole report as JSON, with every sample.
nlohmann::json to_json(const Report& report);

} // namespace dcukit::bench
