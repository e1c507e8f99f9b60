// config.json parsing: the real published files under tests/fixtures/models, plus the shapes
// (text_config nesting, bad input) that need a hand-made document.
#include <gtest/gtest.h>

#include <string>

#include "fixture_model.h"
#include "plan/model_config.h"

using dcukit::plan::LayerKind;
using dcukit::plan::load_model_config;
using dcukit::plan::parse_model_config;

namespace {
std::string fixture(const char* name) { return std::string(DCUKIT_FIXTURES) + "/models/" + name; }
} // namespace

TEST(PlanModelConfig, Qwen3DenseFields) {
  auto m = load_model_config(fixture("qwen3-32b"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->name, "qwen3-32b");
  EXPECT_EQ(m->architecture, "Qwen3ForCausalLM");
  EXPECT_EQ(m->num_layers, 64);
  EXPECT_EQ(m->num_heads, 64);
  EXPECT_EQ(m->num_kv_heads, 8);
  EXPECT_EQ(m->head_dim, 128);  // explicit: 5120 / 64 would give 80
  EXPECT_TRUE(m->qk_norm);
  EXPECT_FALSE(m->qkv_bias);
  EXPECT_EQ(m->count(LayerKind::full_attention), 64);
  EXPECT_EQ(m->max_position_embeddings, 40960);
}

TEST(PlanModelConfig, Qwen25HasQkvBiasAndNoSlidingWindow) {
  auto m = load_model_config(fixture("qwen2.5-7b-instruct") + "/config.json");  // the file itself works too
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->qkv_bias);
  // sliding_window is 131072 but use_sliding_window is false: every layer is full attention.
  EXPECT_EQ(m->count(LayerKind::sliding_attention), 0);
  EXPECT_EQ(m->head_dim, 128);  // 3584 / 28
}

TEST(PlanModelConfig, DeepSeekMlaAndMoeLayers) {
  auto m = load_model_config(fixture("deepseek-v2-lite"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->mla);
  EXPECT_EQ(m->kv_lora_rank, 512);
  EXPECT_EQ(m->qk_rope_head_dim, 64);
  EXPECT_EQ(m->num_experts, 64);
  EXPECT_EQ(m->shared_expert_intermediate_size, 2 * 1408);
  EXPECT_FALSE(m->moe_layers[0]);  // first_k_dense_replace = 1
  EXPECT_TRUE(m->moe_layers[1]);
  EXPECT_TRUE(m->moe_layers[26]);
  // YaRN: original_max_position_embeddings 4096 × factor 40 = 163,840, vLLM's derived limit.
  EXPECT_EQ(m->max_position_embeddings, 163840);
}

TEST(PlanModelConfig, YarnRopeScalingStretchesTheLimitTheWayVllmDerivesIt) {
  // Qwen2.5's model card: add rope_scaling {"type": "yarn", "factor": 4.0,
  // "original_max_position_embeddings": 32768} for 131,072 tokens.
  auto m = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "max_position_embeddings": 32768,
      "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}})", "c");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->max_position_embeddings, 131072);
  // Llama 3.1's llama3 scaling leaves max_position_embeddings (131,072) as it is.
  auto llama = load_model_config(fixture("llama-3.1-8b-instruct"));
  ASSERT_TRUE(llama.ok());
  EXPECT_EQ(llama->max_position_embeddings, 131072);
  // Dynamic NTK is stretched like linear scaling (vLLM excludes only llama3, su and longrope);
  // Gemma 3's linear factor 8 is not: vLLM takes its 131,072 as scaled already.
  auto dynamic = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "max_position_embeddings": 4096,
      "rope_scaling": {"type": "dynamic", "factor": 2.0}})", "c");
  ASSERT_TRUE(dynamic.ok());
  EXPECT_EQ(dynamic->max_position_embeddings, 8192);
  auto gemma = parse_model_config(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
      "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10,
      "intermediate_size": 128, "max_position_embeddings": 131072,
      "rope_scaling": {"rope_type": "linear", "factor": 8.0}}})", "c");
  ASSERT_TRUE(gemma.ok()) << gemma.error().message;
  EXPECT_EQ(gemma->max_position_embeddings, 131072);
  EXPECT_EQ(gemma->rope_rows, 131072 * 8);  // but its global layers' RoPE table is stretched
}

TEST(PlanModelConfig, RopeParametersAreReadOnceForTheLimitAndTheTable) {
  // transformers 5 writes rope_parameters where 4.x wrote rope_scaling: the same YaRN stretches
  // the context limit and sizes the table.
  auto yarn = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "max_position_embeddings": 32768,
      "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768,
      "rope_theta": 1000000}})", "c");
  ASSERT_TRUE(yarn.ok()) << yarn.error().message;
  EXPECT_EQ(yarn->max_position_embeddings, 131072);
  EXPECT_EQ(yarn->rope_rows, 131072);
  // A config that keeps both keys (4.x's beside 5's) is scaled once, not twice.
  auto both = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "max_position_embeddings": 4096,
      "rope_scaling": {"rope_type": "linear", "factor": 4.0},
      "rope_parameters": {"rope_type": "linear", "factor": 4.0}})", "c");
  ASSERT_TRUE(both.ok()) << both.error().message;
  EXPECT_EQ(both->max_position_embeddings, 16384);
  EXPECT_EQ(both->rope_rows, 16384);
  // Gemma 3 under transformers 5: one entry per layer type; the full-attention one scales.
  auto gemma = parse_model_config(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
      "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10,
      "intermediate_size": 128, "max_position_embeddings": 131072,
      "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0},
                          "sliding_attention": {"rope_type": "default"}}}})", "c");
  ASSERT_TRUE(gemma.ok()) << gemma.error().message;
  EXPECT_EQ(gemma->max_position_embeddings, 131072);
  EXPECT_EQ(gemma->rope_rows, 131072 * 8);
}

TEST(PlanModelConfig, ARopeObjectWhoseTypeCannotBeToldIsRefusedNotReadAsUnscaled) {
  const auto with = [](const std::string& rope) {
    return parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "vocab_size": 10, "intermediate_size": 128, "max_position_embeddings": 4096, )" +
                                  rope + "}",
                              "c");
  };
  // A factor without a type, and entries per layer type without full_attention: refused, naming
  // the key and what it holds.
  auto factor = with(R"("rope_scaling": {"factor": 4.0})");
  ASSERT_FALSE(factor.ok());
  EXPECT_NE(factor.error().message.find("rope_scaling holds factor but no rope_type"), std::string::npos)
      << factor.error().message;
  auto layers = with(R"("rope_parameters": {"sliding_attention": {"rope_type": "default"},
      "chunked_attention": {"rope_type": "linear", "factor": 8.0}})");
  ASSERT_FALSE(layers.ok());
  EXPECT_NE(layers.error().message.find("rope_parameters holds chunked_attention, sliding_attention"),
            std::string::npos)
      << layers.error().message;
  // Only a base frequency: transformers' default, unscaled.
  auto theta = with(R"("rope_parameters": {"rope_theta": 500000})");
  ASSERT_TRUE(theta.ok()) << theta.error().message;
  EXPECT_EQ(theta->max_position_embeddings, 4096);
  EXPECT_EQ(theta->rope_rows, 4096);
}

TEST(PlanModelConfig, Qwen3NextHybridLayersFromFullAttentionInterval) {
  auto m = load_model_config(fixture("qwen3-next-80b-a3b-instruct"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(m->hybrid());
  EXPECT_EQ(m->count(LayerKind::full_attention), 12);    // layers 3, 7, ..., 47
  EXPECT_EQ(m->count(LayerKind::linear_attention), 36);
  EXPECT_EQ(m->layers[3], LayerKind::full_attention);
  EXPECT_EQ(m->layers[0], LayerKind::linear_attention);
  EXPECT_TRUE(m->attn_output_gate);
  EXPECT_EQ(m->linear_num_value_heads, 32);
}

TEST(PlanModelConfig, TextConfigNestingAndLayerTypes) {
  // The Qwen3.5 layout: a multimodal wrapper whose text model sits under text_config and lists
  // layer_types explicitly. Hand-made (4 layers), not a published file.
  const char* doc = R"({
    "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
    "text_config": {
      "model_type": "qwen3_5_text", "hidden_size": 1024, "num_hidden_layers": 4, "num_attention_heads": 8,
      "num_key_value_heads": 2, "head_dim": 256, "intermediate_size": 3072, "vocab_size": 1000,
      "max_position_embeddings": 262144, "attn_output_gate": true,
      "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"],
      "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
      "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "torch_dtype": "bfloat16"
    },
    "vision_config": {"hidden_size": 1152}
  })";
  auto m = parse_model_config(doc, "nested");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->architecture, "Qwen3_5ForConditionalGeneration");
  EXPECT_EQ(m->hidden_size, 1024);
  EXPECT_EQ(m->count(LayerKind::linear_attention), 3);
  EXPECT_EQ(m->count(LayerKind::full_attention), 1);
  EXPECT_TRUE(m->attn_output_gate);
}

TEST(PlanModelConfig, MissingConfigNamesTheNearestDirectoryThatHasOne) {
  auto m = load_model_config(std::string(DCUKIT_FIXTURES) + "/models");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("no config.json"), std::string::npos);
  EXPECT_NE(m.error().message.find("pass --model"), std::string::npos);
  EXPECT_NE(m.error().message.find("/models/"), std::string::npos) << m.error().message;
}

TEST(PlanModelConfig, MalformedJsonNamesTheFile) {
  auto m = parse_model_config("{\"hidden_size\": 4096,", "/m/config.json");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("/m/config.json is not valid JSON"), std::string::npos);
}

TEST(PlanModelConfig, UnknownArchitectureFieldsAreNamed) {
  // A Mamba-style config: no attention fields at all.
  auto m = parse_model_config(R"({"model_type": "mamba", "d_model": 2560, "n_layer": 64, "vocab_size": 50280})", "c");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("lacks num_attention_heads"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("model_type 'mamba'"), std::string::npos);

  auto odd = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "layer_types": ["full_attention", "chunked_attention"]})", "c");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.error().message.find("'chunked_attention'"), std::string::npos) << odd.error().message;
  EXPECT_NE(odd.error().message.find("full_attention, sliding_attention, linear_attention and mamba"),
            std::string::npos);

  auto gdn = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "layer_types": ["linear_attention", "full_attention"]})", "c");
  ASSERT_FALSE(gdn.ok());
  EXPECT_NE(gdn.error().message.find("linear_num_key_heads"), std::string::npos);
}

TEST(PlanModelConfig, SlidingWindowLayerTypes) {
  auto m = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 10, "intermediate_size": 128, "sliding_window": 128,
      "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]})", "c");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->count(LayerKind::sliding_attention), 2);
  EXPECT_EQ(m->sliding_window, 128);
}

TEST(PlanModelConfig, GemmaSlidingPatternAndTheDefaultsItsPublishedConfigLeavesOut) {
  // gemma-3-27b-it's config.json states no vocab_size, sliding_window_pattern or tie_word_embeddings:
  // transformers' Gemma3TextConfig gives 262,208, 6 and true, and vLLM serves those.
  auto m = load_model_config(fixture("gemma-3-27b-it"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->vocab_size, 262208);
  EXPECT_TRUE(m->tie_word_embeddings);
  // Every sixth layer is global (layer_idx + 1 divisible by 6): 10 of 62, the rest slide over 1024.
  EXPECT_EQ(m->count(LayerKind::full_attention), 10);
  EXPECT_EQ(m->count(LayerKind::sliding_attention), 52);
  EXPECT_EQ(m->layers[5], LayerKind::full_attention);
  EXPECT_EQ(m->layers[0], LayerKind::sliding_attention);
  EXPECT_EQ(m->max_position_embeddings, 131072);  // the linear factor 8 is not applied again
  // gemma-3-1b-it: 4 global layers of 26 (vLLM's "4 full-attention layers" in its KV groups).
  auto small = load_model_config(fixture("gemma-3-1b-it"));
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small->count(LayerKind::full_attention), 4);
  EXPECT_EQ(small->count(LayerKind::sliding_attention), 22);
  // Gemma 2 alternates, the even layers sliding.
  auto g2 = parse_model_config(R"({"model_type": "gemma2", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128, "sliding_window": 4096})", "g2");
  ASSERT_TRUE(g2.ok()) << g2.error().message;
  EXPECT_EQ(g2->layers[0], LayerKind::sliding_attention);
  EXPECT_EQ(g2->layers[1], LayerKind::full_attention);
  EXPECT_EQ(g2->count(LayerKind::full_attention), 2);
}

TEST(PlanModelConfig, GraniteMambaLayersAreLinearAttentionAndJambasAreRefused) {
  // Granite 4.0 H 1B (vllm-logs/heldout14/configs): attention at layers 5, 15, 25 and 35, Mamba-2
  // elsewhere; its state in the linear-attention fields (1 group of 128, 48 heads of 64).
  const auto g = testutil::fixture_model("../vllm-logs/heldout14/configs/granite-4.0-h-1b");
  EXPECT_EQ(g.count(LayerKind::full_attention), 4);
  EXPECT_EQ(g.count(LayerKind::linear_attention), 36);
  EXPECT_EQ(g.layers[5], LayerKind::full_attention);
  EXPECT_EQ(g.linear_kind, dcukit::plan::LinearKind::mamba2);
  EXPECT_EQ(g.linear_num_key_heads, 1);
  EXPECT_EQ(g.linear_key_head_dim, 128);
  EXPECT_EQ(g.linear_num_value_heads, 48);
  EXPECT_EQ(g.linear_value_head_dim, 64);
  // One group is copied to every rank under TP (vLLM's extra groups); Gated DeltaNet's key heads are not.
  EXPECT_EQ(linear_key_heads(g, 2), 2);
  EXPECT_EQ(linear_key_heads(testutil::fixture_model("qwen3-next-80b-a3b-instruct"), 2), 16);
  // Heads that do not make mamba_expand x hidden_size are refused, not guessed.
  auto odd = parse_model_config(R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 10, "intermediate_size": 128, "layer_types": ["mamba", "attention"], "mamba_n_heads": 3,
      "mamba_d_head": 16, "mamba_d_state": 8})",
                                "c");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.error().message.find("mamba_expand x hidden_size (128)"), std::string::npos) << odd.error().message;
  // Jamba (Mamba-1 layers between attention every attn_layer_period-th) and Nemotron-H's pattern
  // are refused with the reason rather than read as all attention.
  for (const char* field :
       {R"("attn_layer_period": 8, "attn_layer_offset": 4)", R"("hybrid_override_pattern": "M*M-")"}) {
    auto hybrid =
        parse_model_config(std::string(R"({"hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
        "vocab_size": 10, "intermediate_size": 128, )") +
                               field + "}",
                           "c");
    ASSERT_FALSE(hybrid.ok()) << field;
    EXPECT_NE(hybrid.error().message.find("which dcukit plan does not model yet"), std::string::npos)
        << hybrid.error().message;
  }
}
