#pragma once
// A model's shape as its Hugging Face config.json states it: what plan needs to count weights and
// KV-cache bytes without loading anything. Reads the file locally; nothing is downloaded.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace dcukit::plan {

/// What a decoder layer mixes tokens with; decides what it keeps per token or per sequence.
enum class LayerKind {
  full_attention,     ///< KV for every token of the sequence
  sliding_attention,  ///< KV for the last sliding_window tokens only
  linear_attention,   ///< a fixed recurrent + conv state per sequence (Gated DeltaNet, Mamba)
};

/// "full_attention", "sliding_attention", "linear_attention".
std::string_view to_string(LayerKind kind);

/// Which recurrent mixer a linear_attention layer is: its weights and how TP shards its groups.
enum class LinearKind {
  gated_deltanet,  ///< Qwen3-Next, Qwen3.5: key and value heads, each divided by TP
  mamba2,          ///< Granite 4.0 H: one group is replicated on every rank under TP (vLLM's extra groups)
};

/// Weight quantization a checkpoint declares in quantization_config.
enum class QuantMethod { none, gptq, awq, fp8, unsupported };

/// The longest context plan takes, in tokens (Llama 4 Scout's 10M is far below), and the largest
/// RoPE scaling factor.
inline constexpr std::int64_t kMaxContext = 1 << 28;
/// Bounds on config.json's counts: far above any published model, low enough that products of two
/// stay exact and nothing allocates without bound (num_hidden_layers: 1e12 must not).
inline constexpr std::int64_t kMaxLayers = 10000;
inline constexpr std::int64_t kMaxWidth = 1 << 20;  ///< hidden size, head counts and dimensions
inline constexpr double kMaxRopeFactor = 1024;

/// The fields of config.json that decide memory. Sizes are counts, not bytes.
struct ModelConfig {
  std::string name;          ///< the model directory's name, for messages and the script
  std::string path;          ///< the directory (or config.json) it was read from
  std::string model_type;    ///< "qwen3", "deepseek_v2", ...
  std::string architecture;  ///< architectures[0]
  std::string torch_dtype;   ///< "bfloat16", "float16", "float32" (the checkpoint's dtype)

  std::int64_t hidden_size = 0, num_layers = 0, vocab_size = 0;
  std::int64_t num_heads = 0, num_kv_heads = 0, head_dim = 0;  ///< attention heads, KV heads (GQA), their width
  std::int64_t intermediate_size = 0;                          ///< the dense MLP's width
  bool gated_mlp = true;     ///< gate, up and down (Llama); false: two matrices, fc1 and fc2 (OPT, Phi-2, GPT-NeoX)
  bool linear_bias = false;  ///< every projection carries a bias (OPT, Phi-2, GPT-NeoX, StarCoder2)
  bool layer_norm = false;   ///< LayerNorm with weight and bias, not RMSNorm
  std::int64_t learned_positions = 0;  ///< rows of a learned position table (OPT: max_position_embeddings + 2)
  std::int64_t embed_dim = 0;          ///< the token embedding's width where it is not hidden_size (OPT-350m)
  bool final_norm = true;  ///< a norm after the last layer (OPT: do_layer_norm_before and not _remove_final_layer_norm)
  std::int64_t max_position_embeddings = 0;  ///< the context limit as vLLM derives it (RoPE scaling applied)
  bool tie_word_embeddings = false;
  bool qkv_bias = false;          ///< Qwen2 has q/k/v biases
  bool qk_norm = false;           ///< Qwen3 normalises q and k per head
  bool attn_output_gate = false;  ///< Qwen3-Next / Qwen3.5: q_proj also yields a gate

  std::vector<LayerKind> layers;    ///< one a decoder layer
  std::int64_t sliding_window = 0;  ///< tokens, for sliding_attention layers

  // Multi-head latent attention (DeepSeek V2/V3): one latent "head" a layer, not split by TP.
  bool mla = false;
  std::int64_t kv_lora_rank = 0, q_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;

  // Mixture of experts; moe_layers marks the layers whose MLP is the expert block.
  std::int64_t num_experts = 0, experts_per_token = 0, moe_intermediate_size = 0;
  std::int64_t shared_expert_intermediate_size = 0;  ///< all shared experts together
  bool router_bias = false;                          ///< DeepSeek-V3's noaux_tc routing keeps a bias per expert
  std::vector<bool> moe_layers;

  // Linear-attention layers: Gated DeltaNet (Qwen3-Next), or Mamba-2 (Granite 4.0 H), whose state
  // has the same shape with its groups as key heads, d_state as the key width, its heads as value
  // heads and head_dim as the value width: conv (2 g N + H P) x (d_conv - 1), SSM H x P x N.
  LinearKind linear_kind = LinearKind::gated_deltanet;
  std::int64_t linear_num_key_heads = 0, linear_num_value_heads = 0;
  std::int64_t linear_key_head_dim = 0, linear_value_head_dim = 0, linear_conv_kernel = 0;
  int linear_state_bytes = 2;  ///< bytes an element of the recurrent state: mamba_ssm_dtype (Qwen3.5: float32), else 2

  // Beside the decoder (see model_extras.h): a vision tower's parameters (an estimate from vision_config;
  // 0 without one) and the RoPE cos/sin table, rope_rows x rotary_dim in the model dtype (0 without RoPE).
  double vision_params = 0;
  std::int64_t rope_rows = 0, rotary_dim = 0;
  /// The tower's shape, for the encoder's run in vLLM's profile (see encoder_profile.h).
  struct VisionShape {
    /// The towers whose profile run plan follows: Qwen2-VL / Qwen2.5-VL (each encoder token is
    /// spatial_merge² patches of a variable-size image) and Gemma 3 (SigLIP on a fixed-size image).
    enum class Profiled { none, qwen2_vit, gemma3_siglip } profiled = Profiled::none;
    std::int64_t width = 0, intermediate = 0, merge = 0, patch = 0;
    std::int64_t image_patches = 0, image_tokens = 0;  ///< a fixed-size tower's patches and tokens an image
    std::int64_t values_per_patch = 0;  ///< channels x temporal_patch_size x patch²
    std::int64_t out_width = 0;         ///< the merger's output: the text model's width
    bool gated = false;
  } vision;

  QuantMethod quant = QuantMethod::none;
  std::string quant_name;    ///< quant_method as written
  int quant_bits = 16;       ///< 4 for GPTQ/AWQ int4, 8 for fp8
  int quant_group_size = 0;  ///< GPTQ/AWQ group size; -1 per channel

  /// Layers of one kind.
  /// vLLM's default --max-model-len: the context limit, or 4096 when the config gives none.
  std::int64_t default_max_model_len() const { return max_position_embeddings > 0 ? max_position_embeddings : 4096; }
  int count(LayerKind kind) const;
  /// True when some layers keep a per-sequence state instead of per-token KV.
  bool hybrid() const { return count(LayerKind::linear_attention) > 0; }
  /// True for a mixture-of-experts model.
  bool moe() const { return num_experts > 0; }
};

/// Parses config.json text; `origin` names it in errors. Fields under text_config (multimodal
/// wrappers such as Qwen3.5) take precedence over the top level. Errors name the field.
Result<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin);

/// Reads `path`: a model directory holding config.json, or a config.json itself. A missing file
/// names the nearest directory below that has one.
Result<ModelConfig> load_model_config(const std::filesystem::path& path);

/// The linear-attention key heads (Mamba-2's groups) across `tp` ranks: vLLM gives each rank a copy
/// of a Mamba-2 model's one group where TP does not divide them (extra_groups_for_head_shards).
std::int64_t linear_key_heads(const ModelConfig& m, int tp);

}  // namespace dcukit::plan
