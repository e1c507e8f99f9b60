#pragma once
// Engine settings that follow the card: what the user asked for, checked, and what plan picks
// where they left a choice, each with why. The card's own answer decides where this host gave
// one; offline, the published data, and for what nobody has published, the seeds' advice
// (seed 004 for BW1000 and K100-AI, seed 002's caution for Z100 and early K100).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/cards.h"
#include "plan/model_config.h"
#include "plan/settings.h"
#include "util/result.h"

namespace dcukit::plan {

/// What the recommendation prefers among the options that reach the concurrency target.
enum class Goal {
  fewest_cards,      ///< the fewest cards, auto KV before fp8 (more TP adds all-reduce traffic)
  most_concurrency,  ///< the fewest cards, fp8 KV before auto where the card's vLLM has it (seed 004)
};

/// "fewest-cards", "most-concurrency".
std::string_view to_string(Goal goal);
/// The inverse of to_string; nullopt for anything else.
std::optional<Goal> parse_goal(std::string_view text);

/// What the user asked of the engine; an empty field is plan's to choose.
struct Asked {
  std::optional<double> gpu_memory_utilization;
  std::optional<std::int64_t> max_model_len;
  std::optional<int> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<KvCacheDtype> kv_cache_dtype;
  std::optional<int> block_size;
  std::optional<bool> enforce_eager;
  std::optional<Dtype> dtype;
  MmLimits limit_mm_per_prompt;  ///< --limit-mm-per-prompt; empty: the log's, or vLLM's defaults
  int min_concurrency = 8;  ///< full-length requests the recommended option should hold at once
  Goal goal = Goal::fewest_cards;
};

/// A --dtype plan shows beside its choice: the warning and the command that decides it.
struct DtypeOption {
  Dtype dtype = Dtype::bfloat16;
  std::string caveat;
};

/// The settings and what comes with them.
struct Resolved {
  Settings settings;                        ///< every field set, each with its why
  std::optional<DtypeOption> dtype_option;  ///< bf16 shown where plan chose fp16 on an unknown
  std::vector<std::string> warnings;        ///< what the numbers cannot show (an fp16 conversion, ...)
};

/// The command that asks a card whether it does bf16 (seed 002).
inline constexpr std::string_view kBf16Check = "python3 -c 'import torch; print(torch.cuda.is_bf16_supported())'";

/// Checks `asked` against the model and the cards and fills the rest. Errors name the input
/// and the nearest value that works.
Result<Resolved> resolve_settings(const ModelConfig& model, const Cards& cards, const Asked& asked);

}  // namespace dcukit::plan
