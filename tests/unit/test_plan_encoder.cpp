// The vision encoder's run in vLLM V1's multimodal profile (plan/encoder_profile.h): the bytes a
// patch takes at the tower's MLP, the tokens vLLM profiles where no log prints them, and the
// towers plan does not follow.
#include <gtest/gtest.h>

#include <string>

#include "fixture_model.h"
#include "plan/encoder_profile.h"

using namespace dcukit::plan;

namespace {
ModelConfig model(const std::string& name) {
  return testutil::fixture_model(name);
}
}  // namespace

TEST(PlanEncoder, AQwen25VlPatchCostsItsPixelsThreeHiddenTensorsAndTheGatedMlp) {
  const auto m = model("qwen2.5-vl-7b-instruct");
  ASSERT_EQ(m.vision.profiled, ModelConfig::VisionShape::Profiled::qwen2_vit);
  EXPECT_EQ(m.vision.values_per_patch, 3 * 2 * 14 * 14);  // in_chans x temporal_patch_size x patch²
  EXPECT_TRUE(m.vision.gated);
  // The ninth batch's log: one video of 114,688 tokens through the tower at TP 1.
  const auto e = encoder_profile(m, 1, 2.0, {.tokens = 114688, .items = 1, .max_model_len = 128000});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->patches, 114688 * 4);
  const double per_patch = 1176 * 6.0 + 3 * 1280 * 2.0 + 3 * 3420 * 2.0;  // 35,256 B
  EXPECT_DOUBLE_EQ(e->mlp_peak, per_patch * 458752);
  EXPECT_DOUBLE_EQ(e->outputs, 114688.0 * 3584 * 2);
  // Under TP 2 only the MLP's intermediates are split.
  const auto half = encoder_profile(m, 2, 2.0, {.tokens = 114688, .items = 1, .max_model_len = 128000});
  ASSERT_TRUE(half);
  EXPECT_DOUBLE_EQ(e->mlp_peak - half->mlp_peak, 458752.0 * 3 * 3420 * 2 / 2);
}

TEST(PlanEncoder, TheRotaryEmbeddingsCopiesOfQAndKFollowTheVersion) {
  // Beside the pixels (1,176 values in float32 and bf16: 7,056 B) a patch holds the block's input
  // and its normed copy (2 x 2,560 B) and q, k, v (7,680 B): 19,856 B; then, width 1,280:
  // - up to 0.10: contiguous q, k, v (7,680) + one of q and k in float32 and rotated into float32
  //   (2 x 5,120) + its cast (2,560): 40,336 B, above the MLP's 35,256;
  // - 0.11.0: contiguous q, k, v (7,680) + q and k concatenated (5,120) + float32 in and out
  //   (2 x 10,240) + the cast (5,120): 58,256 B;
  // - 0.11.1: the same without the contiguous copies: 50,576 B;
  // - 0.12 on: one packed copy and its rotation in bf16 (2 x 5,120): 30,096 B, below the MLP.
  const auto m = model("qwen2.5-vl-7b-instruct");
  const auto at = [&](VisionRotary r, int tp) {
    return encoder_profile(m, tp, 2.0, {.tokens = 16384, .items = 1, .max_model_len = 8192, .rotary = r});
  };
  const double patches = 65536, pixels = 1176 * 6.0 * patches;
  const std::pair<VisionRotary, double> forms[] = {{VisionRotary::split_fp32, 40336},
                                                   {VisionRotary::cat_fp32_copies, 58256},
                                                   {VisionRotary::cat_fp32, 50576},
                                                   {VisionRotary::packed, 30096}};
  for (const auto& [r, bytes] : forms) {
    const auto e = at(r, 1);
    ASSERT_TRUE(e);
    EXPECT_DOUBLE_EQ(e->rotary_peak, bytes * patches) << to_string(r);
    EXPECT_DOUBLE_EQ(e->peak, std::max(bytes, 35256.0) * patches) << to_string(r);
    EXPECT_DOUBLE_EQ(e->pixels, pixels);
  }
  // At TP 2 a rank rotates its own heads, but holds the whole qkv gathered from both ranks:
  // 7,056 + 5,120 + 3,840 + 7,680, then 3,840 + 640 x 10 for the split form: 33,936 B.
  EXPECT_DOUBLE_EQ(at(VisionRotary::split_fp32, 2)->rotary_peak, 33936 * patches);
  // Gemma 3's SigLIP has no rotary embedding: its peak stays the MLP's.
  const auto gemma = model("gemma-3-27b-it");
  const auto g = encoder_profile(gemma, 1, 2.0,
                                 {.items = 1, .max_num_batched_tokens = 8192, .rotary = VisionRotary::cat_fp32_copies});
  ASSERT_TRUE(g);
  EXPECT_EQ(g->rotary_peak, 0);
  EXPECT_DOUBLE_EQ(g->peak, g->mlp_peak);
}

TEST(PlanEncoder, WithoutALogTheBudgetIsVllmsLargestImageOrVideo) {
  const auto m = model("qwen2.5-vl-7b-instruct");
  // 2,048 tokens of context hold no second frame: one image of 12,845,056 pixels, 16,384 tokens.
  auto e = encoder_profile(m, 1, 2.0, {.max_model_len = 2048, .max_num_batched_tokens = 2048});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tokens, 16384);
  EXPECT_NE(e->budget_from.find("image"), std::string::npos) << e->budget_from;
  // 128,000 tokens hold 14 frames (7 temporal patches of 16,384 tokens), as vLLM 0.23 printed.
  e = encoder_profile(m, 1, 2.0, {.max_model_len = 128000, .max_num_batched_tokens = 2048});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tokens, 114688);
  EXPECT_NE(e->budget_from.find("14 frames"), std::string::npos) << e->budget_from;
  // A longer context stops at vLLM's 16 frames.
  e = encoder_profile(m, 1, 2.0, {.max_model_len = 1 << 20, .max_num_batched_tokens = 2048});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tokens, 8 * 16384);
  // A step of 40,000 tokens holds two images of the most features.
  e = encoder_profile(m, 1, 2.0, {.max_model_len = 4096, .max_num_batched_tokens = 40000});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tokens, 2 * 16384);
  // No more than max-num-seqs requests of the limit's items (V1's decoder budget); a modality the
  // limit allows none of is not profiled.
  e = encoder_profile(m, 1, 2.0,
                      {.max_model_len = 4096, .max_num_batched_tokens = 40000, .max_num_seqs = 1, .image_limit = 1});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tokens, 16384);
  e = encoder_profile(m, 1, 2.0, {.max_model_len = 128000, .max_num_batched_tokens = 2048, .video_limit = 0});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->tokens, 16384);
  EXPECT_NE(e->budget_from.find("image"), std::string::npos) << e->budget_from;
  EXPECT_FALSE(encoder_profile(m, 1, 2.0, {.max_model_len = 4096, .image_limit = 0, .video_limit = 0}));
}

TEST(PlanEncoder, UnderV0QwenTowersRunEverySequencesImagesThenItsVideosInsideTheForwardPass) {
  const auto m = model("qwen2.5-vl-7b-instruct");
  const double a = 2.0, pixel = 1176.0;  // values a patch
  const double patch_at_rotary = 40336;  // 0.9.2's split float32 rotation at TP 1, pixels included
  // Unsloth's T4 runs (heldout12): one sequence of 16,384 tokens, one image, no video.
  auto e = encoder_profile(m, 1, a,
                           {.v0 = true,
                            .qwen_v0_dummy = true,
                            .max_model_len = 16384,
                            .max_num_batched_tokens = 16384,
                            .max_num_seqs = 1,
                            .image_limit = 1,
                            .video_limit = 0});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 1);
  EXPECT_EQ(e->patches, 65536);
  EXPECT_DOUBLE_EQ(e->peak, patch_at_rotary * 65536);
  EXPECT_DOUBLE_EQ(e->beside, 16384.0 * 3584 * a);       // the prompt's text embeddings
  EXPECT_DOUBLE_EQ(e->through_text, 65536 * pixel * 4);  // the float32 pixels; the outputs merged
  // vLLM's V0 defaults, one image and one video: 32,768 multimodal tokens a prompt, so one sequence
  // (at least one) of 16,384, whose video (one frame, padded to two) runs after the image: the
  // image's float32 pixels and outputs are alive beside it, and the prompt's 32,768 text embeddings
  // (it runs past its 16,384).
  e = encoder_profile(m, 1, a,
                      {.v0 = true,
                       .qwen_v0_dummy = true,
                       .max_model_len = 16384,
                       .max_num_batched_tokens = 16384,
                       .max_num_seqs = 256});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 1);
  EXPECT_NE(e->budget_from.find("1 video"), std::string::npos) << e->budget_from;
  EXPECT_DOUBLE_EQ(e->beside, 32768.0 * 3584 * a + 65536 * pixel * 4 + 16384.0 * 3584 * a);
  EXPECT_DOUBLE_EQ(e->through_text, 2 * 65536 * pixel * 4);
  // Image only, 65,536 tokens a step: min(256, 65536 / 16384) = 4 sequences, their images in one run.
  e = encoder_profile(m, 1, a,
                      {.v0 = true,
                       .qwen_v0_dummy = true,
                       .max_model_len = 16384,
                       .max_num_batched_tokens = 65536,
                       .max_num_seqs = 256,
                       .video_limit = 0});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 4);
  EXPECT_EQ(e->patches, 4 * 65536);
  // Before 0.7.2 Qwen2-VL's V0 dummy data were the model's own: not followed.
  EXPECT_FALSE(encoder_profile(m, 1, a, {.v0 = true, .max_num_batched_tokens = 16384, .max_num_seqs = 1}));
}

TEST(PlanEncoder, Gemma3ProfilesFixedSizeImagesOnePerV0SequenceOrAsManyAsAV1StepHolds) {
  const auto m = model("gemma-3-27b-it");
  ASSERT_EQ(m.vision.profiled, ModelConfig::VisionShape::Profiled::gemma3_siglip);
  EXPECT_EQ(m.vision.image_patches, 64 * 64);  // 896 / 14 patches a side
  EXPECT_EQ(m.vision.image_tokens, 256);
  EXPECT_FALSE(m.vision.gated);  // SigLIP's MLP: fc1, GELU, fc2
  // V0, 16,384 tokens a step: one image to each of min(max-num-seqs, 16384 / 260) sequences.
  auto e = encoder_profile(m, 8, 2.0, {.v0 = true, .max_num_batched_tokens = 16384, .max_num_seqs = 16});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 16);
  e = encoder_profile(m, 4, 2.0, {.v0 = true, .max_num_batched_tokens = 16384, .max_num_seqs = 64});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 63);
  EXPECT_EQ(e->patches, 63 * 4096);
  const double per_patch = 3 * 14 * 14 * 6.0 + 3 * 1152 * 2.0 + 2 * 4304 / 4.0 * 2;
  EXPECT_DOUBLE_EQ(e->peak, per_patch * 63 * 4096);
  EXPECT_DOUBLE_EQ(e->outputs, 63.0 * 256 * 5376 * 2);
  // V1 with the log's line: the items it printed (31 in a budget of 8,192).
  e = encoder_profile(m, 1, 2.0, {.tokens = 8192, .items = 31, .max_num_batched_tokens = 8192});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 31);
  // V1 without it: as many as the step holds.
  e = encoder_profile(m, 1, 2.0, {.max_num_batched_tokens = 8192, .max_num_seqs = 256});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->items, 31);
}

TEST(PlanEncoder, TowersPlanDoesNotFollowAreLeftOutNotGuessed) {
  // Qwen3-VL's dummy video profiles far fewer patches than its budget implies (docs/plan.md).
  for (const char* name : {"qwen3-vl-30b-a3b-instruct", "llava-1.5-7b-hf", "qwen2.5-7b-instruct"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(encoder_profile(model(name), 1, 2.0, {.tokens = 16384, .items = 1, .max_num_batched_tokens = 2048}));
  }
}
