#pragma once
// The options a model has on the cards (TP 1, 2, 4, 8; PP where TP alone does not fit), each
// budgeted, one recommended with the reason, and, where none starts, the nearest that would.
#include <functional>
#include <string>
#include <vector>

#include "util/result.h"
#include "plan/advice.h"
#include "plan/cards.h"
#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/weights.h"

namespace dcukit::plan {

/// One way to run the model: tensor and pipeline parallel sizes and a KV-cache dtype.
struct Option {
  int tp = 1, pp = 1;                   ///< tensor and pipeline parallel sizes: tp × pp cards
  std::string kv_cache_dtype = "auto";  ///< "auto" or "fp8"
  Budget budget;                        ///< the busiest GPU's budget; empty when TP cannot shard the model
  std::string problem;  ///< why vLLM would not start with it; empty when it starts

  int gpus() const { return tp * pp; }
  bool starts() const { return problem.empty(); }
};

/// Everything plan found, for the renderers and the script.
struct Plan {
  ModelConfig model;            ///< what was planned
  Weights weights;              ///< its weights and where their size came from
  Cards cards;                  ///< on what
  Settings settings;            ///< with kv_cache_dtype as requested or "auto"
  std::vector<Advice> advice;   ///< one per engine flag
  int min_concurrency = 8;
  std::vector<Option> options;
  int recommended = -1;         ///< index into options; -1 when none starts
  std::string reason;           ///< why the recommended option, or why none starts
  std::string nearest;          ///< when none starts: the nearest inputs that do, as flags
  std::vector<std::string> warnings;  ///< what the numbers cannot show: a checkpoint the card cannot run natively

  /// The recommended option, or nullptr.
  const Option* chosen() const { return recommended >= 0 ? &options[static_cast<std::size_t>(recommended)] : nullptr; }
};

/// How an option is budgeted: plan's generic estimate (compute_budget, the default) or one vLLM
/// version's accounting (vllm_plan.h), which also fills that version's defaults for the flags the
/// user left out.
struct BudgetModel {
  /// The budget of one GPU at TP × PP.
  std::function<Budget(const ModelConfig&, const Weights&, const Cards&, const Settings&, int tp, int pp)> budget;
  /// Optional: adjusts the resolved settings and their advice to the version's defaults.
  std::function<void(const Request&, const Cards&, Settings&, std::vector<Advice>&)> defaults;
};

/// plan's generic estimate: compute_budget, no version defaults.
BudgetModel generic_budget_model();

/// Budgets one option, filling its problem when vLLM would refuse to start.
Option evaluate(const ModelConfig& model, const Weights& weights, const Cards& cards, const Settings& settings, int tp,
                int pp, const std::string& kv_cache_dtype, const BudgetModel& budget_model = generic_budget_model());

/// Plans `model` on `cards`. Errors only for bad input; a model that fits nowhere is a Plan with
/// recommended == -1 and `nearest` set.
Result<Plan> make_plan(const ModelConfig& model, const Weights& weights, const Cards& cards, const Request& request);

/// As above, each option budgeted by `budget_model`.
Result<Plan> make_plan(const ModelConfig& model, const Weights& weights, const Cards& cards, const Request& request,
                       const BudgetModel& budget_model);

} // namespace dcukit::plan
