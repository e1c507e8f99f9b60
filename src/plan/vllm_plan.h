#pragma once
// The planner's budget model for one vLLM version: each option budgeted the way that version
// computes it (vllm_budget.h), and that version's defaults for the flags the user left out.
#include "plan/planner.h"
#include "plan/vllm_version.h"

namespace dcukit::plan {

/// A BudgetModel for make_plan that follows `version`'s accounting and defaults.
BudgetModel vllm_budget_model(const VllmVersion& version);

}  // namespace dcukit::plan
