#pragma once
// The options a model has on the cards (TP 1, 2, 4, 8; PP where TP alone does not fit; the fp8
// KV cache beside auto where the card's vLLM has it), each budgeted, one recommended with the
// reason, and, where none starts, the nearest inputs that would. Each option is budgeted by a
// BudgetModel: one vLLM version's accounting (plan/vllm_plan.h, what plan::run uses) or plan's
// generic estimate (the default of make_plan).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/advice.h"
#include "plan/cards.h"
#include "plan/memory.h"
#include "plan/model_config.h"
#include "plan/vllm_version.h"
#include "plan/weights.h"
#include "util/result.h"

namespace dcukit::plan {

/// One way to run the model: tensor and pipeline parallel sizes and a KV-cache dtype.
struct Option {
  int tp = 1, pp = 1;  ///< tensor and pipeline parallel sizes: tp × pp cards
  KvCacheDtype kv_cache_dtype = KvCacheDtype::automatic;
  bool unverified = false;  ///< an fp8 KV row on a card whose vLLM nobody has confirmed it on
  Budget budget;            ///< the busiest GPU's budget; empty when TP cannot shard the model
  std::string problem;      ///< why vLLM would not start with it; empty when it starts

  int gpus() const { return tp * pp; }
  bool starts() const { return problem.empty(); }
};

/// "TP 4", "TP 8 × PP 2": the one spelling of an option in tables, reasons and the script.
std::string label(const Option& option);

/// Everything plan found, for the renderers and the script.
struct Plan {
  ModelConfig model;  ///< what was planned
  Weights weights;    ///< its weights and where their size came from
  Cards cards;        ///< on what
  Settings settings;  ///< the engine settings, with the recommended option's KV dtype, each with why
  std::optional<DtypeOption> dtype_option;  ///< the --dtype shown beside the choice, with its caveat
  int min_concurrency = 8;
  Goal goal = Goal::fewest_cards;
  std::vector<Option> options;
  int recommended = -1;               ///< index into options; -1 when none starts
  std::string reason;                 ///< why the recommended option, or why none starts
  std::string nearest;                ///< when none starts: the nearest inputs that do, as flags
  std::vector<std::string> warnings;  ///< what the numbers cannot show: a checkpoint converted or run off-format
  std::vector<std::string> caveats;   ///< what comes with an option shown (the fp8 KV cache on DCU)
  /// The vLLM version whose accounting and defaults the budgets follow, and why that one;
  /// empty: plan's generic estimate.
  std::optional<ChosenVllm> accounting;

  /// The recommended option, or nullptr.
  const Option* chosen() const { return recommended >= 0 ? &options[static_cast<std::size_t>(recommended)] : nullptr; }
};

/// How an option is budgeted: plan's generic estimate (compute_budget) or one vLLM version's
/// accounting (vllm_plan.h), which also puts that version's defaults in the settings the user
/// left to plan.
struct BudgetModel {
  /// The budget of one GPU at TP × PP.
  std::function<Budget(const ModelConfig&, const Weights&, const Cards&, const Settings&, int tp, int pp)> budget;
  /// Optional: the version's defaults for the settings `asked` leaves out, each with its why.
  /// An error where the result is a combination that version refuses; it names the flags.
  std::function<Status(const Asked&, const Cards&, Settings&)> defaults;
  /// The version followed, for the plan's accounting line; empty for the generic estimate.
  std::optional<ChosenVllm> vllm;
};

/// plan's generic estimate: compute_budget, no version defaults.
BudgetModel generic_budget_model();

/// Budgets one option, filling its problem when vLLM would refuse to start.
Option evaluate(const ModelConfig& model, const Weights& weights, const Cards& cards, const Settings& settings, int tp,
                int pp, KvCacheDtype kv_cache_dtype, const BudgetModel& budget_model = generic_budget_model());

/// Plans `model` on `cards`. Errors only for bad input; a model that fits nowhere is a Plan with
/// recommended == -1 and `nearest` set.
Result<Plan> make_plan(const ModelConfig& model, const Weights& weights, const Cards& cards, const Asked& asked);

/// As above, each option budgeted by `budget_model`.
Result<Plan> make_plan(const ModelConfig& model, const Weights& weights, const Cards& cards, const Asked& asked,
                       const BudgetModel& budget_model);

}  // namespace dcukit::plan
