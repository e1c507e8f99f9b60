#include "plan/encoder_profile.h"

#include <fmt/format.h>

#include <algorithm>

namespace dcukit::plan {
namespace {

using Profiled = ModelConfig::VisionShape::Profiled;

// Qwen2-VL's image processor: max_pixels 12,845,056 (3584²), so an image of the most features is
// (3584 / (patch x merge))² tokens; vLLM's profile gives a dummy video at most 16 frames of that
// size (_MAX_FRAMES_PER_VIDEO), and no more frames than fit in max_model_len.
constexpr std::int64_t kQwenMaxPixels = 12845056;
constexpr std::int64_t kQwenProfileFrames = 16;
constexpr std::int64_t kTemporalPatch = 2;
// Gemma 3's prompt holds an image as "\n\n<start_of_image>", its 256 tokens, "<end_of_image>\n\n":
// 4 more tokens than it embeds (vLLM 0.11 profiled 31 images in a budget of 8,192).
constexpr std::int64_t kGemmaImageFrame = 4;

/// Bytes a patch at a Qwen2-VL or Qwen2.5-VL block's rotary embedding on one rank, beside the pixels:
/// the block's input and its normed copy (which the call holds), the rank's q, k and v (w / tp each)
/// and, at TP > 1, the whole qkv gathered from every rank; then the version's copies of q and k:
/// - split_fp32: q, k, v made contiguous; one of q and k in float32 and rotated into float32, then cast;
/// - cat_fp32_copies: q, k, v made contiguous, q and k concatenated, that in float32, rotated, cast;
/// - cat_fp32: the same without the contiguous copies;
/// - packed: one packed copy of q and k, rotated in the tower's dtype.
/// vLLM's Triton rotary kernel on CUDA; PyTorch's fallback (no flash-attn) holds more float32 terms.
double rotary_bytes(const ModelConfig::VisionShape& v, int tp, double a, VisionRotary rotary) {
  const double w = static_cast<double>(v.width);
  const double u = w / tp;
  const double held = 2 * w * a + 3 * u * a + (tp > 1 ? 3 * w * a : 0);
  switch (rotary) {
    case VisionRotary::split_fp32:
      return held + 3 * u * a + u * (8 + a);
    case VisionRotary::cat_fp32_copies:
      return held + 3 * u * a + 2 * u * a + 16 * u + 2 * u * a;
    case VisionRotary::cat_fp32:
      return held + 2 * u * a + 16 * u + 2 * u * a;
    case VisionRotary::packed:
      return held + 2 * u * a + 2 * u * a;
  }
  return held;
}

/// Qwen2-VL's count where no log printed it: the modality with the most tokens an item (an
/// image, or a video whose frames fit in max_model_len), as many items as
/// max(max_num_batched_tokens, one item) holds.
void qwen_budget(const ModelConfig::VisionShape& v, const EncoderAsk& ask, EncoderProfile& e) {
  const std::int64_t side = v.patch * v.merge;
  const std::int64_t image = side > 0 ? kQwenMaxPixels / (side * side) : 0;
  if (image <= 0) return;
  auto video_tokens = [&](std::int64_t frames) { return (frames + frames % kTemporalPatch) / kTemporalPatch * image; };
  std::int64_t frames = 1;
  while (frames < kQwenProfileFrames && video_tokens(frames + 1) <= ask.max_model_len) ++frames;
  const std::int64_t item = std::max(image, video_tokens(frames));
  e.items = std::max<std::int64_t>(1, std::max(ask.max_num_batched_tokens, item) / item);
  e.tokens = e.items * item;
  e.budget_from = fmt::format(
      "{} {} item{} of {} tokens at the processor's default max_pixels (a log's encoder-cache line gives "
      "the real budget; --mm-processor-kwargs or --limit-mm-per-prompt change it)",
      e.items, item > image ? fmt::format("video ({} frames)", frames) : "image", e.items == 1 ? "" : "s", item);
}

/// Gemma 3's images where no log printed them: V0 gives each of min(max-num-seqs, the step's
/// tokens / an image's) dummy sequences one image; V1 as many images as the step's tokens hold.
void gemma_budget(const ModelConfig::VisionShape& v, const EncoderAsk& ask, EncoderProfile& e) {
  const std::int64_t per_image = v.image_tokens + kGemmaImageFrame;
  const std::int64_t fit = std::max<std::int64_t>(1, ask.max_num_batched_tokens / per_image);
  e.items = ask.v0 ? std::max<std::int64_t>(1, std::min(ask.max_num_seqs, fit)) : fit;
  e.budget_from =
      ask.v0 ? fmt::format(
                   "V0 gives each of {} dummy sequences an image (the fewer of max-num-seqs "
                   "and the {} images of {} tokens a step holds)",
                   e.items, fit, per_image)
             : fmt::format("{} images of {} tokens in a step of {}", e.items, per_image, ask.max_num_batched_tokens);
}

}  // namespace

std::optional<EncoderProfile> encoder_profile(const ModelConfig& model, int tp, double act_bytes,
                                              const EncoderAsk& ask) {
  const auto& v = model.vision;
  if (v.profiled == Profiled::none || v.width <= 0 || tp < 1) return std::nullopt;
  EncoderProfile e;
  if (v.profiled == Profiled::qwen2_vit) {
    if (ask.v0) return std::nullopt;  // V0 sizes Qwen2-VL's dummy images to the sequence
    if (ask.tokens) {
      e.items = std::max<std::int64_t>(1, ask.items.value_or(1));
      e.tokens = e.items * (*ask.tokens / e.items);  // K items of the most tokens the budget holds
      e.budget_from = "the log's encoder-cache line";
    } else {
      qwen_budget(v, ask, e);
    }
    e.patches = e.tokens * v.merge * v.merge;
  } else {
    if (v.image_patches <= 0) return std::nullopt;
    if (ask.items) {
      e.items = *ask.items;
      e.budget_from = "the log's encoder-cache line";
    } else {
      gemma_budget(v, ask, e);
    }
    e.tokens = e.items * v.image_tokens;
    e.patches = e.items * v.image_patches;
  }
  if (e.patches <= 0) return std::nullopt;
  // At a block's MLP, on one rank: the pixels as the processor made them (float32) and in the
  // tower's dtype; the residual stream, the normed input and the MLP's output (hidden width,
  // whole on every rank); the MLP's intermediates (gate-up and activated, or fc1 and activated),
  // split by TP. Qwen2-VL towers may peak earlier, at the attention's rotary embedding.
  const double patches = static_cast<double>(e.patches);
  e.pixels = patches * static_cast<double>(v.values_per_patch) * (4.0 + act_bytes);
  const double hidden = 3.0 * static_cast<double>(v.width) * act_bytes;
  const double mlp = (v.gated ? 3.0 : 2.0) * static_cast<double>(v.intermediate) / tp * act_bytes;
  e.mlp_peak = e.pixels + patches * (hidden + mlp);
  if (v.profiled == Profiled::qwen2_vit)
    e.rotary_peak = e.pixels + patches * rotary_bytes(v, tp, act_bytes, ask.rotary);
  e.peak = std::max(e.mlp_peak, e.rotary_peak);
  e.outputs = static_cast<double>(e.tokens) * static_cast<double>(v.out_width) * act_bytes;
  return e;
}

}  // namespace dcukit::plan
