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
// vLLM's items of a modality a prompt may hold where --limit-mm-per-prompt does not say
// (MultiModalConfig.get_limit_per_prompt: 999 under V1, 1 under V0).
constexpr std::int64_t kV0Limit = 1;
constexpr std::int64_t kV1Limit = 999;

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

std::int64_t qwen_image_tokens(const ModelConfig::VisionShape& v) {
  const std::int64_t side = v.patch * v.merge;
  return side > 0 ? kQwenMaxPixels / (side * side) : 0;
}

/// Tokens of a dummy video of `frames` frames at the image size: frames pair up (temporal patch 2).
std::int64_t qwen_video_tokens(std::int64_t image, std::int64_t frames) {
  return (frames + frames % kTemporalPatch) / kTemporalPatch * image;
}

/// The frames of each of `videos` dummy videos in a prompt of `len` tokens whose images take
/// `image_tokens`: as many as the rest holds, split among the videos, 1 to 16.
std::int64_t qwen_frames(std::int64_t image, std::int64_t len, std::int64_t image_tokens, std::int64_t videos) {
  const std::int64_t rest = len - image_tokens;
  const std::int64_t total = rest >= image ? 2 * (rest / image) : 0;  // frames pair up: 2p frames, p x image tokens
  return std::clamp<std::int64_t>(total / std::max<std::int64_t>(videos, 1), 1, kQwenProfileFrames);
}

/// Qwen2-VL's count under V1 where no log printed it: the modality with the most tokens an item
/// (an image, or a video whose frames fit in max_model_len) among those the limits allow, as
/// many items as max(max_num_batched_tokens, one item) holds, and no more than max-num-seqs
/// requests of the limit's items.
void qwen_budget(const ModelConfig::VisionShape& v, const EncoderAsk& ask, EncoderProfile& e) {
  const std::int64_t image = qwen_image_tokens(v);
  const std::int64_t images = ask.image_limit.value_or(kV1Limit), videos = ask.video_limit.value_or(kV1Limit);
  if (image <= 0 || (images <= 0 && videos <= 0)) return;
  const std::int64_t frames = qwen_frames(image, ask.max_model_len, 0, 1);  // one video, no images beside it
  const bool video = videos > 0 && (images <= 0 || qwen_video_tokens(image, frames) > image);
  const std::int64_t item = video ? qwen_video_tokens(image, frames) : image;
  e.items = std::max<std::int64_t>(1, std::max(ask.max_num_batched_tokens, item) / item);
  if (ask.max_num_seqs > 0)
    e.items = std::max<std::int64_t>(1, std::min(e.items, ask.max_num_seqs * (video ? videos : images)));
  e.tokens = e.items * item;
  e.budget_from = fmt::format(
      "{} {} item{} of {} tokens at the processor's default max_pixels (a log's encoder-cache line gives "
      "the real budget; --mm-processor-kwargs or --limit-mm-per-prompt change it)",
      e.items, video ? fmt::format("video ({} frames)", frames) : "image", e.items == 1 ? "" : "s", item);
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

/// The tower's bytes on one rank over `patches` at once: the pixels as the processor made them
/// (float32) and in the tower's dtype; at a block's MLP the residual stream, the normed input and
/// the MLP's output (hidden width, whole on every rank) and the MLP's intermediates (gate-up and
/// activated, or fc1 and activated), split by TP; Qwen2-VL towers may peak earlier, at the
/// attention's rotary embedding.
struct TowerBytes {
  double pixels = 0, mlp = 0, rotary = 0;
  double peak() const { return std::max(mlp, rotary); }
};

TowerBytes tower_bytes(const ModelConfig::VisionShape& v, int tp, double a, VisionRotary rotary, std::int64_t patches) {
  TowerBytes b;
  const double n = static_cast<double>(patches);
  b.pixels = n * static_cast<double>(v.values_per_patch) * (4.0 + a);
  const double hidden = 3.0 * static_cast<double>(v.width) * a;
  const double mlp = (v.gated ? 3.0 : 2.0) * static_cast<double>(v.intermediate) / tp * a;
  b.mlp = b.pixels + n * (hidden + mlp);
  if (v.profiled == Profiled::qwen2_vit) b.rotary = b.pixels + n * rotary_bytes(v, tp, a, rotary);
  return b;
}

void set_peak(EncoderProfile& e, const TowerBytes& b) {
  e.pixels = b.pixels;
  e.mlp_peak = b.mlp;
  e.rotary_peak = b.rotary;
  e.peak = b.peak();
}

/// Qwen2-VL towers under V0 (0.7.2 on): min(max-num-seqs, batched // the most multimodal tokens a
/// prompt holds) dummy sequences, at least one, each with the limit's images and videos at the
/// processor's largest size (a prompt may run past its share of the step). The tower runs over
/// every sequence's images at once, then over their videos, inside the forward pass: the prompt's
/// text embeddings and the pixels of both are alive meanwhile, and the image outputs during the
/// videos'. The outputs are merged into the text model's input; the float32 pixels stay.
std::optional<EncoderProfile> qwen_v0(const ModelConfig& m, int tp, double a, const EncoderAsk& ask) {
  const auto& v = m.vision;
  const std::int64_t image = qwen_image_tokens(v);
  const std::int64_t images = ask.image_limit.value_or(kV0Limit), videos = ask.video_limit.value_or(kV0Limit);
  if (image <= 0 || (images <= 0 && videos <= 0)) return std::nullopt;
  const std::int64_t most =
      images * image +
      (videos > 0 ? videos * qwen_video_tokens(image, qwen_frames(image, ask.max_model_len, images * image, videos))
                  : 0);
  const std::int64_t seqs =
      std::max<std::int64_t>(1, std::min<std::int64_t>(ask.max_num_seqs, ask.max_num_batched_tokens / most));
  const std::int64_t frames = qwen_frames(image, ask.max_num_batched_tokens / seqs, images * image, videos);
  const std::int64_t video = qwen_video_tokens(image, frames);
  const std::int64_t image_tokens = seqs * images * image, video_tokens = seqs * videos * video;
  const std::int64_t merge = v.merge * v.merge;
  const auto img = tower_bytes(v, tp, a, ask.rotary, image_tokens * merge);
  const auto vid = tower_bytes(v, tp, a, ask.rotary, video_tokens * merge);
  const double a32 = 4.0 / (4.0 + a);  // the float32 share of a call's pixels
  const double text = static_cast<double>(std::max(ask.max_num_batched_tokens, image_tokens + video_tokens)) *
                      static_cast<double>(m.hidden_size) * a;
  const double image_out = static_cast<double>(image_tokens) * static_cast<double>(v.out_width) * a;
  EncoderProfile e;
  const double during_images = images > 0 ? img.peak() + text + vid.pixels * a32 : 0;
  const double during_videos = videos > 0 ? vid.peak() + text + img.pixels * a32 + image_out : 0;
  const bool by_video = during_videos > during_images;
  set_peak(e, by_video ? vid : img);
  e.items = seqs * (by_video ? videos : images);
  e.tokens = by_video ? video_tokens : image_tokens;
  e.patches = e.tokens * merge;
  e.beside = (by_video ? during_videos : during_images) - e.peak;
  e.outputs = static_cast<double>(e.tokens) * static_cast<double>(v.out_width) * a;
  e.through_text = (img.pixels + vid.pixels) * a32;
  e.budget_from = fmt::format(
      "V0 gives each of {} dummy sequence{} {} image{}{} at the processor's default max_pixels ({} tokens each); "
      "--limit-mm-per-prompt {}",
      seqs, seqs == 1 ? "" : "s", images, images == 1 ? "" : "s",
      videos > 0 ? fmt::format(" and {} video{} of {} frames", videos, videos == 1 ? "" : "s", frames) : "", image,
      ask.image_limit || ask.video_limit ? "from the log" : "not stated: V0's default, 1 of each");
  return e;
}

std::optional<EncoderProfile> profile(const ModelConfig& model, int tp, double act_bytes, const EncoderAsk& ask) {
  const auto& v = model.vision;
  if (v.profiled == Profiled::none || v.width <= 0 || tp < 1) return std::nullopt;
  if (v.profiled == Profiled::qwen2_vit && ask.v0) {
    if (!ask.qwen_v0_dummy) return std::nullopt;  // before 0.7.2 the dummy data were the model's own
    auto e = qwen_v0(model, tp, act_bytes, ask);
    if (!e || e->patches <= 0) return std::nullopt;
    return e;
  }
  EncoderProfile e;
  if (v.profiled == Profiled::qwen2_vit) {
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
  set_peak(e, tower_bytes(v, tp, act_bytes, ask.rotary, e.patches));
  e.outputs = static_cast<double>(e.tokens) * static_cast<double>(v.out_width) * act_bytes;
  // V1 keeps the outputs cached while the text model runs; Gemma 3's V0 forward holds the pixels
  // and the outputs through it.
  e.through_text = ask.v0 ? e.pixels + e.outputs : e.outputs;
  return e;
}

}  // namespace

std::optional<EncoderProfile> encoder_profile(const ModelConfig& model, int tp, double act_bytes,
                                              const EncoderAsk& ask) {
  auto e = profile(model, tp, act_bytes, ask);
  // vLLM 0.11.1+ profiles items of the sizes --limit-mm-per-prompt's options give; plan keeps
  // the processor's largest and says so.
  if (e && ask.dummy_sizes)
    e->budget_from += "; --limit-mm-per-prompt gives the dummy items' sizes, which plan does not follow";
  return e;
}

}  // namespace dcukit::plan
