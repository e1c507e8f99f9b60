#pragma once
// A plan as people read it (tables through core/table.h) and as programs read it (JSON with the
// same numbers). Both render the one Plan struct.
#include <string>
#include <string_view>
#include <vector>

#include "core/table.h"
#include "plan/planner.h"
#include "plan/types.h"
#include "util/result.h"

namespace dcukit::plan {

/// The model, the cards and what the weights and KV cost, in a few lines.
std::string render_summary(const Plan& plan);
/// One row an option, the recommended one marked; notes say why it was chosen.
core::Table options_table(const Plan& plan);
/// One row an engine flag: its value and why (plan/flags.h renders them from the settings).
core::Table flags_table(const Plan& plan);
/// Summary, both tables and the verdict as aligned text (markdown = true: Markdown tables).
std::string render_plan(const Plan& plan, bool markdown = false);
/// The report as terminal text: the plan (render_plan), or the checked log (render_check_text).
std::string render_text(const Report& report);
/// The same with Markdown tables, for a ticket or a wiki.
std::string render_markdown(const Report& report);
/// The report as a JSON document: run_info first, then the vLLM accounting followed and
/// everything in the plan (bytes as integers, ratios as numbers, enums in vLLM's spellings, each
/// setting with its why); for a checked log, the check (plan/check_log_render.h).
nlohmann::ordered_json to_json(const Report& report);
/// Reads to_json's document back (a plan or a checked log, kept from another run or host); the
/// error says what is not a plan report. Fields to_json derives are rebuilt from their sources.
Result<Report> from_json(std::string_view text);

}  // namespace dcukit::plan
