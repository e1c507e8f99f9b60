#include "plan/model_layers.h"

#include <fmt/format.h>

#include <string>

namespace dcukit::plan {
namespace {

using nlohmann::json;

/// A model with Mamba layers: plan does not size their state (conv and SSM, per sequence), and
/// must not read every layer as attention.
std::string mamba_refusal(std::string_view what) {
  return fmt::format(
      "{}, which dcukit plan does not model yet: vLLM keeps each Mamba layer's state per sequence beside the "
      "attention layers' KV pages, and reading them as attention would put every layer in the KV cache; "
      "plan refuses rather than answer wrongly",
      what);
}

/// Granite 4.0 H's Mamba-2 layers in the linear-attention fields (model_config.h says the mapping):
/// mamba_n_heads x mamba_d_head = mamba_expand x hidden_size, mamba_n_groups groups of mamba_d_state.
Status read_mamba2(const json& j, FieldReader& f, ModelConfig& m, std::string_view origin) {
  const auto heads = f.integer(j, "mamba_n_heads", 0, 0, kMaxWidth);
  const auto expand = f.integer(j, "mamba_expand", 2, 1, 64);
  const auto inner = expand * m.hidden_size;
  const auto head_dim = f.integer(j, "mamba_d_head", heads > 0 ? inner / heads : 0, 0, kMaxWidth);
  m.linear_num_value_heads = heads;
  m.linear_value_head_dim = head_dim;
  m.linear_num_key_heads = f.integer(j, "mamba_n_groups", 1, 1, kMaxWidth);
  m.linear_key_head_dim = f.integer(j, "mamba_d_state", 0, 0, kMaxWidth);
  m.linear_conv_kernel = f.integer(j, "mamba_d_conv", 4, 1, 1024);
  if (!f.ok()) return f.status();
  if (heads <= 0 || head_dim <= 0 || m.linear_key_head_dim <= 0 || heads * head_dim != inner)
    return Error{
        fmt::format("{}: layer_types has mamba layers but mamba_n_heads ({}), mamba_d_head ({}) and "
                    "mamba_d_state ({}) are not all there, or heads x head width is not mamba_expand x "
                    "hidden_size ({}); dcukit plan cannot size their state",
                    origin, heads, head_dim, m.linear_key_head_dim, inner)};
  return {};
}

/// Qwen3-Next's Gated DeltaNet fields.
Status read_gated_deltanet(const json& j, FieldReader& f, ModelConfig& m, std::string_view origin) {
  m.linear_num_key_heads = f.integer(j, "linear_num_key_heads", 0, 0, kMaxWidth);
  m.linear_num_value_heads = f.integer(j, "linear_num_value_heads", 0, 0, kMaxWidth);
  m.linear_key_head_dim = f.integer(j, "linear_key_head_dim", 0, 0, kMaxWidth);
  m.linear_value_head_dim = f.integer(j, "linear_value_head_dim", 0, 0, kMaxWidth);
  m.linear_conv_kernel = f.integer(j, "linear_conv_kernel_dim", 4, 1, 1024);
  if (f.ok() && (m.linear_num_key_heads <= 0 || m.linear_num_value_heads <= 0 || m.linear_key_head_dim <= 0 ||
                 m.linear_value_head_dim <= 0))
    return Error{
        fmt::format("{}: layer_types has linear_attention layers but the linear_num_key_heads, "
                    "linear_num_value_heads, linear_key_head_dim and linear_value_head_dim fields "
                    "(Qwen3-Next's Gated DeltaNet) are not all there; dcukit plan cannot size their state",
                    origin)};
  return {};
}

}  // namespace

void read_layer_kinds(const json& j, FieldReader& f, ModelConfig& m) {
  const auto n = static_cast<std::size_t>(m.num_layers);
  // Jamba: attention every attn_layer_period-th layer from attn_layer_offset, Mamba elsewhere;
  // Nemotron-H: a pattern of M (Mamba), * (attention) and - (MLP); Zamba and others list the kinds.
  for (const char* key : {"attn_layer_period", "hybrid_override_pattern", "layers_block_type", "mamba_d_state"})
    if (j.contains(key) && !j.contains("linear_num_value_heads") && !j.contains("layer_types"))
      return f.fail(
          mamba_refusal(fmt::format("{} makes some layers Mamba layers (ai21's Jamba, NVIDIA's "
                                    "Nemotron-H)",
                                    key)));
  m.sliding_window = f.integer(j, "sliding_window", 0, 0, kMaxContext);
  if (auto it = j.find("layer_types"); it != j.end() && it->is_array()) {
    if (it->size() != n)
      return f.fail(
          fmt::format("layer_types lists {} layers but num_hidden_layers is {}; make them agree", it->size(), n));
    for (const auto& t : *it) {
      const std::string s = t.is_string() ? t.get<std::string>() : show(t);
      if (s == "full_attention" || s == "attention")
        m.layers.push_back(LayerKind::full_attention);
      else if (s == "sliding_attention")
        m.layers.push_back(LayerKind::sliding_attention);
      else if (s == "linear_attention")
        m.layers.push_back(LayerKind::linear_attention);
      else if (s == "mamba" || s == "mamba2") {  // Granite 4.0 H: Mamba-2 mixers
        m.layers.push_back(LayerKind::linear_attention);
        m.linear_kind = LinearKind::mamba2;
      } else
        return f.fail(
            fmt::format("layer_types has '{}', which dcukit plan does not model; the known kinds are "
                        "full_attention, sliding_attention, linear_attention and mamba",
                        s));
    }
    return;
  }
  const auto interval = f.integer(j, "full_attention_interval", 0, 0, kMaxLayers);
  if (interval > 0 && j.contains("linear_num_value_heads")) {  // Qwen3-Next: every interval-th layer is full
    for (std::size_t i = 0; i < n; ++i)
      m.layers.push_back((i + 1) % static_cast<std::size_t>(interval) == 0 ? LayerKind::full_attention
                                                                           : LayerKind::linear_attention);
    return;
  }
  // Gemma 3 (and Cohere 2): every pattern-th layer is global, the others slide; Gemma 2 alternates,
  // sliding first.
  const auto pattern = f.integer(j, "sliding_window_pattern", m.model_type == "gemma2" ? 2 : 0, 0, kMaxLayers);
  if (pattern > 0 && m.sliding_window > 0) {
    const auto p = static_cast<std::size_t>(pattern);
    for (std::size_t i = 0; i < n; ++i)
      m.layers.push_back((m.model_type == "gemma2" ? i % p == 1 : (i + 1) % p == 0) ? LayerKind::full_attention
                                                                                    : LayerKind::sliding_attention);
    return;
  }
  // Qwen2 style: use_sliding_window turns on SWA from layer max_window_layers up; Mistral style:
  // a sliding_window without the switch applies to every layer.
  const bool has_switch = j.contains("use_sliding_window");
  const bool swa = m.sliding_window > 0 && (has_switch ? f.boolean(j, "use_sliding_window", false) : true);
  const auto first_swa = static_cast<std::size_t>(has_switch ? f.integer(j, "max_window_layers", 0, 0, kMaxLayers) : 0);
  for (std::size_t i = 0; i < n; ++i)
    m.layers.push_back(swa && i >= first_swa ? LayerKind::sliding_attention : LayerKind::full_attention);
}

Status read_linear_state(const json& j, FieldReader& f, ModelConfig& m, std::string_view origin) {
  if (!m.hybrid()) return {};
  // vLLM keeps the recurrent state in mamba_ssm_dtype where the config names one, else the model dtype.
  const std::string ssm = f.text(j, "mamba_ssm_dtype");
  if (ssm == "float32")
    m.linear_state_bytes = 4;
  else if (!ssm.empty() && ssm != "bfloat16" && ssm != "float16")
    return Error{
        fmt::format("{}: mamba_ssm_dtype '{}' is not float32, bfloat16 or float16; dcukit plan cannot "
                    "size the recurrent state",
                    origin, ssm)};
  return m.linear_kind == LinearKind::mamba2 ? read_mamba2(j, f, m, origin) : read_gated_deltanet(j, f, m, origin);
}

std::int64_t linear_key_heads(const ModelConfig& m, int tp) {
  const bool replicated = m.linear_kind == LinearKind::mamba2 && m.linear_num_key_heads % tp != 0;
  return replicated ? tp : m.linear_num_key_heads;
}

}  // namespace dcukit::plan
