#pragma once
// How an exporter run ended (where it served, how many scrapes), as text, Markdown and JSON (its
// --json file), and that JSON read back. The metrics themselves are metrics.h's.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "exporter/types.h"
#include "util/result.h"

namespace dcukit::exporter {

/// "served http://127.0.0.1:9402/metrics: 120 scrapes, 0 collect errors".
std::string render_text(const Report& report);
/// The same as a Markdown table.
std::string render_markdown(const Report& report);
/// run_info, schema_version, address, scrapes, collect_errors.
nlohmann::ordered_json to_json(const Report& report);
/// Reads to_json's document back; the error says what is not an exporter report.
Result<Report> from_json(std::string_view text);

}  // namespace dcukit::exporter
