#pragma once
// The renderers of a doctor Report: a table a person reads (every finding, then each problem
// with its evidence, why and fix) and JSON for programs and support bundles. Both read only the
// Report.
#include <string>
#include <string_view>

#include "doctor/types.h"
#include "util/result.h"

namespace dcukit::doctor {

/// The text report; `verbose` shows the evidence of every finding, not only of the problems.
std::string render_text(const Report& report, bool verbose = false);
/// One Markdown table row a finding, with its evidence and fix, for a ticket.
std::string render_markdown(const Report& report);

/// {"run_info", "root", "summary": {"ok", "warn", "fail", "skip"}, "findings": [{"id",
/// "category", "subject", "status", "summary", "evidence", "why", "fix"}]}; subject, why and fix
/// are null when empty.
nlohmann::ordered_json to_json(const Report& report);

/// Reads to_json's output back (a bundle's doctor.json); errors name what is wrong.
Result<Report> from_json(std::string_view text);

}  // namespace dcukit::doctor
