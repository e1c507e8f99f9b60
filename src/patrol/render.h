#pragma once
// A patrol Report as a monitoring system reads it: the Nagios plugin output (one summary line
// with perfdata after '|', then with `verbose` one line per finding), or JSON with the same content.
#include <nlohmann/json.hpp>
#include <string>

#include "patrol/types.h"
#include "util/result.h"

namespace dcukit::patrol {

/// "PATROL CRITICAL - gpu1 temperature 97 C (critical at 95 C) | gpu0_temperature=53;83;88 ...\n".
std::string render_nagios(const Report& r, bool verbose);
/// The summary alone, without "PATROL STATE - " or perfdata.
std::string summary(const Report& r);
/// One perfdata item: 'label'=value[uom];[warn];[crit];[min];[max] (trailing empty fields dropped).
std::string perf_text(const Perf& p);
/// The Nagios output with a line a finding (render_nagios verbose).
std::string render_text(const Report& r);
/// The findings as a Markdown table under the state and summary.
std::string render_markdown(const Report& r);
/// run_info, schema_version, then {"state": "OK", "exit_code": 0, "summary": ..., "findings":
/// [...], "perfdata": [...]}, secrets redacted.
nlohmann::ordered_json to_json(const Report& r);
/// Reads to_json's document back; the error says what is not a patrol report.
Result<Report> from_json(std::string_view text);

}  // namespace dcukit::patrol
