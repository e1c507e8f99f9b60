// Weight bytes: from safetensors headers, from the index's total_size, and counted from config.json,
// each against a figure worked by hand below.
#include <gtest/gtest.h>

#include <string>

#include "plan/model_config.h"
#include "plan/weights.h"

using namespace dcukit::plan;

namespace {
std::string fixture(const char* name) { return std::string(DCUKIT_FIXTURES) + "/models/" + name; }

ModelConfig load(const char* name) {
  auto m = load_model_config(fixture(name));
  EXPECT_TRUE(m.ok()) << m.error().message;
  return *m;
}
} // namespace

TEST(PlanWeights, Qwen25_7BComputedMatchesTheIndexTotalSize) {
  // Per layer: q 3584·3584 + bias 3584 = 12,848,640; k and v 3584·512 + 512 = 1,835,520 each;
  // o 3584·3584 = 12,845,056; MLP 3·3584·18944 = 203,685,888; two norms 7,168.
  // Layer = 233,057,792; × 28 = 6,525,618,176. Embedding and untied lm_head 2·152064·3584
  // = 1,089,994,752; final norm 3,584. Parameters 7,615,616,512 × 2 bytes = 15,231,233,024,
  // which is the published model.safetensors.index.json total_size.
  const auto m = load("qwen2.5-7b-instruct");
  EXPECT_DOUBLE_EQ(compute_weights(m).total(), 15231233024.0);
  auto w = count_weights(m);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->source, WeightSource::computed);
  EXPECT_EQ(w->total_bytes, 15231233024u);
}

TEST(PlanWeights, IndexTotalSizeIsUsedWhenTheShardsAreAbsent) {
  auto w = count_weights(load("qwen2.5-7b-index"));
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(w->source, WeightSource::index_total_size);
  EXPECT_EQ(w->total_bytes, 15231233024u);
}

TEST(PlanWeights, Qwen3_8B) {
  // Layer: q 4096·4096 = 16,777,216; k, v 4096·1024 = 4,194,304 each; o 16,777,216;
  // MLP 3·4096·12288 = 150,994,944; norms 8,192; q_norm + k_norm 256 → 192,946,432.
  // × 36 = 6,946,071,552; + 2·151936·4096 = 1,244,659,712; + 4,096 = 8,190,735,360 params
  // → 16,381,470,720 bytes.
  EXPECT_DOUBLE_EQ(compute_weights(load("qwen3-8b")).total(), 16381470720.0);
}

TEST(PlanWeights, Qwen3_32B) {
  // Layer: q 5120·(64·128) = 41,943,040; k, v 5120·1024 = 5,242,880 each; o 8192·5120 = 41,943,040;
  // MLP 3·5120·25600 = 393,216,000; norms 10,240; q/k norms 256 → 487,598,336.
  // × 64 = 31,206,293,504; + 2·151936·5120 = 1,555,824,640; + 5,120 = 32,762,123,264 params
  // → 65,524,246,528 bytes.
  EXPECT_DOUBLE_EQ(compute_weights(load("qwen3-32b")).total(), 65524246528.0);
}

TEST(PlanWeights, Llama31_8B) {
  // Layer: q 16,777,216; k, v 4,194,304 each; o 16,777,216; MLP 3·4096·14336 = 176,160,768;
  // norms 8,192 → 218,112,000; × 32 = 6,979,584,000; + 2·128256·4096 = 1,050,673,152; + 4,096
  // = 8,030,261,248 params → 16,060,522,496 bytes (the published index total_size).
  EXPECT_DOUBLE_EQ(compute_weights(load("llama-3.1-8b-instruct")).total(), 16060522496.0);
}

TEST(PlanWeights, DeepSeekV2LiteMlaAndExperts) {
  // MLA layer (no q_lora): q_proj 2048·16·192 = 6,291,456; kv_a_proj_with_mqa 2048·576 = 1,179,648;
  // kv_a_layernorm 512; kv_b_proj 512·16·256 = 2,097,152; o_proj 16·128·2048 = 4,194,304
  // → 13,763,072, + 2 norms 4,096 = 13,767,168; × 27 = 371,713,536.
  // Layer 0 dense MLP 3·2048·10944 = 67,239,936. Layers 1-26: 64 experts · 3·2048·1408
  // = 553,648,128, shared 3·2048·2816 = 17,301,504, router 64·2048 = 131,072 → 571,080,704; × 26
  // = 14,848,098,304. Embedding + lm_head 2·102400·2048 = 419,430,400; final norm 2,048.
  // Params 15,706,484,224 → 31,412,968,448 bytes (the "16B" model).
  const auto m = load("deepseek-v2-lite");
  const auto w = compute_weights(m);
  EXPECT_DOUBLE_EQ(w.total(), 31412968448.0);
  // kv_a_proj_with_mqa and the norms stay whole on every TP rank.
  EXPECT_GT(w.replicated, 27 * 1179648.0 * 2);
}

TEST(PlanWeights, DeepSeekV3Fp8WithQLora) {
  // Per layer, MLA with q_lora_rank 1536: q_a 7168·1536 = 11,010,048; q_b 1536·128·192 = 37,748,736;
  // kv_a 7168·576 = 4,128,768; kv_b 512·128·256 = 16,777,216; o 128·128·7168 = 117,440,512
  // → 187,105,280 linear; × 61 = 11,413,422,080. Dense MLP (layers 0-2) 3·7168·18432 = 396,361,728
  // each → 1,189,085,184. MoE (58 layers): 256·3·7168·2048 + 3·7168·2048 = 11,318,329,344 each
  // → 656,463,101,952. Linear params 669,065,609,216, fp8 with a float32 scale per 128×128 block:
  // × (1 + 4/16384) = 669,065,609,216 + 163,346,096 = 669,228,955,312 B.
  // 16-bit: norms 61·(1536 + 512 + 2·7168) = 999,424; routers and their noaux_tc bias
  // 58·(256·7168 + 256) = 106,445,312; final norm 7,168 → 107,451,904 params; embedding and
  // lm_head 2·129280·7168 = 1,853,358,080 → 3,921,619,968 B. Total 673,150,575,280 B.
  // (Parameters: 671,026,419,200, the published "671B" without the MTP layer.)
  const auto m = load("deepseek-v3");
  EXPECT_EQ(m.quant, QuantMethod::fp8);
  EXPECT_DOUBLE_EQ(compute_weights(m).total(), 673150575280.0);
}

TEST(PlanWeights, Qwen3NextHybridMoe) {
  // Full-attention layer (gated): q 2048·16·256·2 = 16,777,216; k, v 2048·2·256 = 1,048,576 each;
  // o 4096·2048 = 8,388,608; q/k norms 512 → 27,263,488; 12 of them = 327,161,856.
  // Gated DeltaNet layer: in_proj_qkvz 2048·(2·2048 + 2·4096) = 25,165,824; in_proj_ba 2048·64
  // = 131,072; out_proj 4096·2048 = 8,388,608; conv1d 8192·4 = 32,768; dt_bias + A_log 64;
  // norm 128 → 33,718,464; 36 of them = 1,213,864,704.
  // MoE every layer: 512 experts · 3·2048·512 = 1,610,612,736; shared 3·2048·512 = 3,145,728;
  // router 512·2048 = 1,048,576; shared gate 2,048; + norms 4,096 → 1,614,813,184; × 48 = 77,511,032,832.
  // Embedding + lm_head 2·151936·2048 = 622,329,856; final norm 2,048.
  // Params 79,674,391,296 → 159,348,782,592 bytes (MTP layers are not counted).
  EXPECT_DOUBLE_EQ(compute_weights(load("qwen3-next-80b-a3b-instruct")).total(), 159348782592.0);
}

TEST(PlanWeights, ExactBytesFromASafetensorsHeader) {
  // tiny-llama-safetensors/model.safetensors is generated: an 8-byte little-endian header length,
  // the JSON header, then zeros. Its tensors: embed 16·8 bf16 = 256 B; q 8·8 = 128; k, v 4·8 = 64
  // each; o 128; gate, up 16·8 = 256 each; down 8·16 = 256; two norms 8 × F32 = 32 each; final
  // norm 8 bf16 = 16. Stored: 1,488 B. vLLM loads the F32 norms as bf16 (16 B each): 1,456 B.
  const auto m = load("tiny-llama-safetensors");
  auto st = read_safetensors(m.path, m.num_layers);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->files, 1);
  EXPECT_EQ(st->tensors, 11);
  EXPECT_EQ(st->stored_bytes, 1488u);
  EXPECT_EQ(st->bytes, 1456u);
  auto w = count_weights(m);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->source, WeightSource::safetensors_headers);
  EXPECT_EQ(w->total_bytes, 1456u);
  // The same model counted from its config.json (tied embeddings) agrees: 728 params · 2 bytes.
  EXPECT_DOUBLE_EQ(compute_weights(m).total(), 1456.0);
}

TEST(PlanWeights, Gptq4BitLinearLayers) {
  // Llama-3.1-8B shapes with GPTQ int4, group 128: a linear parameter takes 0.5 B + (2 B scale +
  // 0.5 B zero) / 128 = 0.51953125 B. Linear params: 32 · (16,777,216·2 + 4,194,304·2 + 176,160,768)
  // = 32 · 218,103,808 = 6,979,321,856 → 3,625,975,808 B. 16-bit: embeddings 2,101,346,304 B,
  // norms 32·8192·2 + 8192 = 532,480 B. Total 5,727,854,592 B.
  std::string doc = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
    "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "vocab_size": 128256, "max_position_embeddings": 131072,
    "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}})";
  auto m = parse_model_config(doc, "gptq");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ(compute_weights(*m).total(), 5727854592.0);
}

TEST(PlanWeights, TensorParallelSplitKeepsReplicatedKvHeads) {
  // Qwen3-32B at TP 8: KV heads (8) split one a rank; at TP 16 they would be replicated. At TP 8
  // the per-GPU share is the total over 8 plus the replicated norms (7/8 of 64·(10,240+256)·2 B),
  // and every rank builds vLLM's whole RoPE table: 40,960 positions × 128 × 2 B.
  const auto m = load("qwen3-32b");
  auto w = count_weights(m);
  ASSERT_TRUE(w.ok());
  const double tp8 = static_cast<double>(w->per_gpu(m, 8, 1));
  const double norms = 64 * (10240 + 256) * 2.0 + 5120 * 2.0;
  const double rope = 40960 * 128 * 2.0;
  EXPECT_NEAR(tp8, (65524246528.0 - norms) / 8 + norms + rope, 2.0);
  // PP 2 puts 32 of 64 layers and the larger of embedding and lm_head (equal here) on the busiest
  // stage, with the final norm: (65,524,246,528 − 1,555,824,640 − 10,240) / 2 + 777,912,320
  // + 10,240 = 32,762,128,384, and the RoPE table, 10,485,760.
  EXPECT_EQ(w->per_gpu(m, 1, 2), 32762128384u + 10485760u);
}

TEST(PlanWeights, Opt125MTwoMatrixMlpLearnedPositionsAndBiases) {
  // OPT: fc1 and fc2 (no gate), biases on every projection, LayerNorm with a bias, learned positions
  // offset by 2, the output tied to the embedding. Embedding 50272·768 = 38,608,896; positions
  // 2050·768 = 1,574,400; per layer q, k, v, o 4·(768·768 + 768) = 2,362,368, fc1 768·3072 + 3072 =
  // 2,362,368, fc2 3072·768 + 768 = 2,360,064, two LayerNorms 3,072: 7,087,872, × 12 = 85,054,464;
  // final LayerNorm 1,536. 125,239,296 parameters, facebook/opt-125m's published count, × 2 bytes.
  const auto m = load("opt-125m");
  EXPECT_FALSE(m.gated_mlp);
  EXPECT_TRUE(m.tie_word_embeddings);
  EXPECT_EQ(m.intermediate_size, 3072);
  EXPECT_DOUBLE_EQ(compute_weights(m).total(), 2 * 125239296.0);
}

TEST(PlanWeights, Opt350MProjectsItsNarrowerEmbedding) {
  // word_embed_proj_dim 512 under hidden_size 1024: the embedding is 50272·512 and project_in,
  // project_out are 512·1024 each; do_layer_norm_before = false (post-norm layers) leaves out the
  // final LayerNorm. The published count, 331,196,416.
  const auto m = parse_model_config(
      R"({"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 1024, "ffn_dim": 4096,
          "num_attention_heads": 16, "num_hidden_layers": 24, "max_position_embeddings": 2048,
          "vocab_size": 50272, "word_embed_proj_dim": 512, "do_layer_norm_before": false})",
      "opt-350m");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->embed_dim, 512);
  EXPECT_FALSE(m->final_norm);
  EXPECT_DOUBLE_EQ(compute_weights(*m).total(), 2 * 331196416.0);
}

TEST(PlanWeights, AnUngatedMlpWithoutItsWidthIsRefused) {
  // OPT's width is ffn_dim; without it (or intermediate_size) plan says so rather than size a guess.
  const auto m = parse_model_config(
      R"({"model_type": "opt", "hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12,
          "vocab_size": 50272})",
      "opt-broken");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("intermediate_size (OPT's ffn_dim) is missing"), std::string::npos) << m.error().message;
}

TEST(PlanWeights, VisionTowerCountedFromVisionConfigAndSplitByTp) {
  // Llama 4 Scout's tower: 34 blocks of 4·1408² + 2·1408·5632 (fc1, fc2), the 14×14 patch over 3
  // channels, the pixel shuffle (ratio 0.5: 5632 → 4096 → 4096) and 4096 → 5120 into the text model.
  auto scout = load("llama-4-scout-17b-16e-instruct");
  EXPECT_DOUBLE_EQ(scout.vision_params, 870490624.0);
  // Qwen3.6-27B's: 27 blocks of 4·1152² + 2·1152·4304, a 2×16×16 patch over 3 channels, 2304
  // positions, and one merger of 2×2 patches (4608 → 4608 → 5120).
  EXPECT_DOUBLE_EQ(load("qwen3.6-27b").vision_params, 460320768.0);
  // Qwen3-VL's the same body, and a merger for each of the three deepstack layers (4608 → 2048).
  EXPECT_DOUBLE_EQ(load("qwen3-vl-30b-a3b-instruct").vision_params, 538177536.0);
  // Qwen2.5-VL-7B's vision_config names no type: its SiLU MLP is gated (gate, up, down).
  EXPECT_DOUBLE_EQ(load("qwen2.5-vl-7b-instruct").vision_params, 676034560.0);
  EXPECT_DOUBLE_EQ(load("qwen3-8b").vision_params, 0.0);
  // vLLM shards the tower by TP: a rank holds a quarter of its 16-bit bytes beside the decoder.
  ModelConfig text_only = scout;
  text_only.vision_params = 0;
  auto with = count_weights(scout), without = count_weights(text_only);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_NEAR(static_cast<double>(with->per_gpu(scout, 4, 1)) - static_cast<double>(without->per_gpu(text_only, 4, 1)),
              870490624.0 * 2 / 4, 2.0);
}

TEST(PlanWeights, EveryRankHoldsTheWholeRopeTable) {
  // vLLM's get_rope builds max_position rows of rotary_dim (cos and sin halves) in the model dtype.
  // Llama 4 Scout's 10,485,760 positions (llama3 scaling leaves them) × 128 × 2 B are 2.5 GiB.
  const auto scout = load("llama-4-scout-17b-16e-instruct");
  EXPECT_EQ(scout.rope_rows, 10485760);
  EXPECT_EQ(scout.rotary_dim, 128);
  EXPECT_DOUBLE_EQ(compute_weights(scout).rope, 2684354560.0);
  // Qwen3.6 rotates a quarter of its 256-wide heads; DeepSeek's MLA the 64 rope channels over
  // YaRN's 4096 × 40 positions; OPT has learned positions and no table.
  const auto qwen = load("qwen3.6-27b");
  EXPECT_EQ(qwen.rotary_dim, 64);
  EXPECT_EQ(qwen.rope_rows, 262144);
  const auto ds = load("deepseek-v2-lite");
  EXPECT_EQ(ds.rotary_dim, 64);
  EXPECT_EQ(ds.rope_rows, 163840);
  EXPECT_EQ(load("opt-125m").rope_rows, 0);
  // Not in the checkpoint: the total the files are compared with leaves it out.
  EXPECT_DOUBLE_EQ(compute_weights(load("llama-3.1-8b-instruct")).total(), 16060522496.0);
  // Dynamic NTK builds its table for max_position × factor.
  auto dyn = parse_model_config(
      R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
          "num_attention_heads": 32, "vocab_size": 32000, "max_position_embeddings": 4096,
          "rope_scaling": {"type": "dynamic", "factor": 2.0}})",
      "dynamic");
  ASSERT_TRUE(dyn.ok()) << dyn.error().message;
  EXPECT_EQ(dyn->rope_rows, 8192);
}
