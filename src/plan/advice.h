#pragma once
// Engine settings that follow the card: what the user asked for, checked, and what plan picks
// where they left a choice (seed 002: some DCUs lack bf16; seed 004: headroom and eager mode on
// DCU; FP8 KV only where the card has FP8).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"
#include "plan/cards.h"
#include "plan/memory.h"
#include "plan/model_config.h"

namespace dcukit::plan {

/// One engine flag and why it has its value; the launch script comments each flag with `why`.
struct Advice {
  std::string flag;   ///< "--dtype"
  std::string value;  ///< "float16"; empty for a switch such as --enforce-eager
  std::string why;
};

/// What the user asked for; an empty field is plan's to choose.
struct Request {
  std::optional<double> gpu_memory_utilization;
  std::optional<std::int64_t> max_model_len;
  std::optional<int> max_num_seqs;
  std::optional<std::int64_t> max_num_batched_tokens;
  std::optional<std::string> kv_cache_dtype;
  std::optional<int> block_size;
  std::optional<bool> enforce_eager;
  std::optional<std::string> dtype;
  int min_concurrency = 8;  ///< full-length requests the recommended option should hold at once
};

/// Checks `request` against the model and the cards and fills the rest; `advice` receives one
/// entry a flag. Errors name the input and the nearest value that works.
Result<Settings> resolve_settings(const ModelConfig& model, const Cards& cards, const Request& request,
                                  std::vector<Advice>& advice);

} // namespace dcukit::plan
