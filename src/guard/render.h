#pragma once
// How a guard run ended, as text, Markdown and JSON (its --json file), and that JSON read back.
// What happened on the way is in the event stream (events.h), not here.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "guard/types.h"
#include "util/result.h"

namespace dcukit::guard {

/// "guard stopped: 2 restarts, last state ready, the service stopped completely".
std::string render_text(const Report& report);
/// The same as a Markdown table.
std::string render_markdown(const Report& report);
/// run_info, schema_version, restarts, final_state, stop_complete.
nlohmann::ordered_json to_json(const Report& report);
/// Reads to_json's document back; the error says what is not a guard report.
Result<Report> from_json(std::string_view text);

}  // namespace dcukit::guard
