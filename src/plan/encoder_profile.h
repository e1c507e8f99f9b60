#pragma once
// The vision encoder's share of vLLM's profile run. V1 runs the encoder over its encoder-cache
// budget (items of the modality with the most tokens, as many as the budget holds) before the
// text model's dummy batch and keeps the outputs cached while the text model runs; V0 gives each
// dummy sequence of a multimodal model its images (and videos) and runs the encoder inside the
// forward pass. Its peak counts towards the activation the KV budget is left after.
#include <cstdint>
#include <optional>
#include <string>

#include "plan/model_config.h"
#include "plan/vllm_rules.h"

namespace dcukit::plan {

struct EncoderProfile {
  std::int64_t tokens = 0;   ///< encoder tokens (outputs) profiled
  std::int64_t items = 0;    ///< images or videos
  std::int64_t patches = 0;  ///< patches through the tower
  double peak = 0;           ///< bytes on one rank at the tower's peak (the larger of the two below)
  double mlp_peak = 0;       ///< bytes at a block's MLP
  double rotary_peak = 0;    ///< bytes at the attention's rotary embedding (Qwen2-VL towers; else 0)
  double outputs = 0;        ///< bytes of the outputs
  double pixels = 0;         ///< bytes of the input pixels (float32 and the tower's dtype), within peak
  /// V0: bytes the forward pass holds beside the tower while it runs (Qwen2-VL: the prompt's text
  /// embeddings, the other modality's pixels and outputs).
  double beside = 0;
  /// Bytes alive through the text model's layers: V1 the cached outputs; V0 what the forward pass
  /// keeps (Gemma 3: the pixels and outputs; Qwen2-VL: the float32 pixels, its outputs merged into
  /// the text model's input).
  double through_text = 0;
  std::string budget_from;  ///< where the count came from, in words
};

/// What the engine asked of the profile run.
struct EncoderAsk {
  bool v0 = false;                     ///< V0: the dummy sequences carry the images
  bool qwen_v0_dummy = false;          ///< V0 gives Qwen2-VL towers the processor's dummies (VllmRules)
  std::optional<std::int64_t> tokens;  ///< V1: the budget the log's encoder-cache line printed
  std::optional<std::int64_t> items;   ///< V1: the items that line printed
  std::int64_t max_model_len = 0;
  std::int64_t max_num_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
  /// --limit-mm-per-prompt where stated; otherwise vLLM's default (V0 1, V1 999 of each modality).
  std::optional<std::int64_t> image_limit, video_limit;
  bool dummy_sizes = false;                        ///< the limits set the dummy items' sizes, which are not followed
  VisionRotary rotary = VisionRotary::split_fp32;  ///< the version's rotation of q and k
};

/// The encoder's profile on one rank at tensor-parallel size `tp`, for the towers plan follows
/// (model.vision.profiled), or nothing. Without a log's figures, vLLM's rule gives the count.
std::optional<EncoderProfile> encoder_profile(const ModelConfig& model, int tp, double act_bytes,
                                              const EncoderAsk& ask);

}  // namespace dcukit::plan
