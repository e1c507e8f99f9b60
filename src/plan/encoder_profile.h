#pragma once
// The vision encoder's share of vLLM V1's profile run. Before the text model's dummy batch, V1
// runs the encoder over its encoder-cache budget (one item of the modality with the most tokens,
// or as many as the budget holds) and keeps the outputs in the encoder cache while the text model
// runs. Its peak counts towards the activation the KV budget is left after.
#include <cstdint>
#include <optional>
#include <string>

#include "plan/model_config.h"

namespace dcukit::plan {

struct EncoderProfile {
  std::int64_t tokens = 0;   ///< encoder tokens profiled (items x tokens an item)
  std::int64_t patches = 0;  ///< patches through the tower: tokens x spatial_merge²
  double peak = 0;           ///< bytes on one rank at the tower's peak (inside a block's MLP)
  double outputs = 0;        ///< bytes of the kept outputs, alive during the text model's dummy batch
  std::string budget_from;   ///< where `tokens` came from, in words
};

/// The encoder's profile on one rank at tensor-parallel size `tp`, for a tower plan can follow
/// (Qwen2-VL and Qwen2.5-VL, model.vision.qwen2_vit), or nothing. `tokens` is the profiled count
/// where a log printed it; otherwise vLLM's rule from `max_model_len` and `max_num_batched_tokens`.
std::optional<EncoderProfile> encoder_profile(const ModelConfig& model, int tp, double act_bytes,
                                              std::optional<std::int64_t> tokens, std::int64_t max_model_len,
                                              std::int64_t max_num_batched_tokens);

}  // namespace dcukit::plan
