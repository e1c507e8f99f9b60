#include "plan/encoder_profile.h"

#include <fmt/format.h>

#include <algorithm>

namespace dcukit::plan {
namespace {

// Qwen2-VL's image processor: max_pixels 12,845,056 (3584²), so an image of the most features is
// (3584 / (patch x merge))² tokens; vLLM's profile gives a dummy video at most 16 frames of that
// size (_MAX_FRAMES_PER_VIDEO), and no more frames than fit in max_model_len.
constexpr std::int64_t kQwenMaxPixels = 12845056;
constexpr std::int64_t kQwenProfileFrames = 16;
constexpr std::int64_t kTemporalPatch = 2;

/// vLLM's encoder budget where no log printed it: the modality with the most tokens an item
/// (an image, or a video whose frames fit in max_model_len), as many items as
/// max(max_num_batched_tokens, one item) holds.
std::int64_t qwen_budget_tokens(const ModelConfig::VisionShape& v, std::int64_t max_model_len,
                                std::int64_t max_num_batched_tokens, std::string& why) {
  const std::int64_t side = v.patch * v.merge;
  const std::int64_t image = side > 0 ? kQwenMaxPixels / (side * side) : 0;
  if (image <= 0) return 0;
  auto video_tokens = [&](std::int64_t frames) { return (frames + frames % kTemporalPatch) / kTemporalPatch * image; };
  std::int64_t frames = 1;
  while (frames < kQwenProfileFrames && video_tokens(frames + 1) <= max_model_len) ++frames;
  const std::int64_t item = std::max(image, video_tokens(frames));
  const std::int64_t items = std::max<std::int64_t>(1, std::max(max_num_batched_tokens, item) / item);
  why = fmt::format("{} {} item{} of {} tokens at the processor's default max_pixels (a log's encoder-cache "
                    "line gives the real budget; --mm-processor-kwargs or --limit-mm-per-prompt change it)",
                    items, item > image ? fmt::format("video ({} frames)", frames) : "image", items == 1 ? "" : "s",
                    item);
  return items * item;
}

}  // namespace

std::optional<EncoderProfile> encoder_profile(const ModelConfig& model, int tp, double act_bytes,
                                              std::optional<std::int64_t> tokens, std::int64_t max_model_len,
                                              std::int64_t max_num_batched_tokens) {
  const auto& v = model.vision;
  if (!v.qwen2_vit || v.width <= 0 || v.merge <= 0 || tp < 1) return std::nullopt;
  EncoderProfile e;
  if (tokens) {
    e.tokens = *tokens;
    e.budget_from = "the log's encoder-cache line";
  } else {
    e.tokens = qwen_budget_tokens(v, max_model_len, max_num_batched_tokens, e.budget_from);
  }
  if (e.tokens <= 0) return std::nullopt;
  e.patches = e.tokens * v.merge * v.merge;
  // At a block's MLP, on one rank: the pixels as the processor made them (float32) and in the
  // tower's dtype; the residual stream, the normed input and the MLP's output (hidden width,
  // whole on every rank); the MLP's intermediates (gate-up and activated, or fc1 and activated),
  // split by TP.
  const double pixels = static_cast<double>(v.values_per_patch) * (4.0 + act_bytes);
  const double hidden = 3.0 * static_cast<double>(v.width) * act_bytes;
  const double mlp = (v.gated ? 3.0 : 2.0) * static_cast<double>(v.intermediate) / tp * act_bytes;
  e.peak = static_cast<double>(e.patches) * (pixels + hidden + mlp);
  e.outputs = static_cast<double>(e.tokens) * static_cast<double>(v.out_width) * act_bytes;
  return e;
}

}  // namespace dcukit::plan
