#pragma once
// The options a model has on the cards (TP 1, 2, 4, 8; PP where TP alone does not fit; the fp8
// KV cache beside auto where the card's vLLM has it), each budgeted, one recommended with the
// reason, and, where none starts, the nearest inputs that would.
#include <string>
#include <vector>

#include "plan/advice.h"
#include "plan/cards.h"
#include "plan/memory.h"
#include "plan/model_config.h"
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

  /// The recommended option, or nullptr.
  const Option* chosen() const { return recommended >= 0 ? &options[static_cast<std::size_t>(recommended)] : nullptr; }
};

/// Budgets one option, filling its problem when vLLM would refuse to start.
Option evaluate(const ModelConfig& model, const Weights& weights, const Cards& cards, const Settings& settings, int tp,
                int pp, KvCacheDtype kv_cache_dtype);

/// Plans `model` on `cards`. Errors only for bad input; a model that fits nowhere is a Plan with
/// recommended == -1 and `nearest` set.
Result<Plan> make_plan(const ModelConfig& model, const Weights& weights, const Cards& cards, const Asked& asked);

}  // namespace dcukit::plan
