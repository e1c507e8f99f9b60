#pragma once
// The planner's budget model for one vLLM version: each option budgeted the way that version
// computes it (vllm_budget.h), and that version's defaults for the settings the user left out.
#include "plan/planner.h"
#include "plan/vllm_version.h"

namespace dcukit::plan {

/// A BudgetModel for make_plan that follows `vllm`'s accounting and defaults; the plan names it.
BudgetModel vllm_budget_model(const ChosenVllm& vllm);

}  // namespace dcukit::plan
