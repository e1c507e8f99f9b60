#pragma once
// A stress Report as a person reads it (one table of verdicts a device and check, then each
// problem with its evidence and action), as Markdown for a ticket, as JSON (run_info first, the
// telemetry series included) and as CSV (one row a device a telemetry reading, for plotting);
// and that JSON read back.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "stress/types.h"
#include "util/result.h"

namespace dcukit::stress {

/// The verdict table, then every check that is not a pass with its evidence and action.
std::string render_text(const Report& report);
/// The same as Markdown tables.
std::string render_markdown(const Report& report);
/// {"run_info", "schema_version", "level", "verdict", "devices": [{..., "checks": [...]}],
/// "samples": [...], "notes", "interrupted"}.
nlohmann::ordered_json to_json(const Report& report);
/// Reads to_json's document back; the error says what is not a stress report.
Result<Report> from_json(std::string_view text);
/// The telemetry series as CSV: t_s, device, phase and each figure, one row a reading.
std::string render_csv(const Report& report);

}  // namespace dcukit::stress
