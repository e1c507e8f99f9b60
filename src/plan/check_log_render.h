#pragma once
// A --check-log result as people read it (one table a run: each line vLLM printed beside plan's,
// with the difference) and as programs read it (JSON with the same numbers).
#include <string>

#include "core/run_info.h"
#include "core/table.h"
#include "plan/check_log.h"

namespace dcukit::plan {

/// One run's lines: vLLM, plan, difference; notes say the version, settings and verdict.
core::Table check_table(const LogCheck& check, const RunCheck& run);
/// Every run's table and the overall verdict (markdown = true: Markdown tables).
std::string render_check_text(const LogCheck& check, bool markdown = false);
/// The whole check as JSON, run_info first: numbers in GiB or counts, the verdict and the
/// uncertain terms.
nlohmann::ordered_json to_json(const core::RunInfo& run_info, const LogCheck& check);
/// --limit-mm-per-prompt as vLLM takes it (mm_limits_flag's object); plan's and the check's
/// settings both write it, where something is set.
nlohmann::ordered_json to_json(const MmLimits& limits);

}  // namespace dcukit::plan
