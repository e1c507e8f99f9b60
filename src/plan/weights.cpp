#include "plan/weights.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "util/files.h"
#include "util/names.h"

namespace dcukit::plan {
namespace {

constexpr double kMaxWeightBytes = 1125899906842624.0;  // 1 PiB: far above any checkpoint
constexpr double kHalf = 2.0;  // bytes of a bf16/fp16 element: vLLM serves 16-bit whatever the checkpoint holds

/// Bytes a linear layer's parameter takes under the model's quantization.
double linear_bytes_per_param(const ModelConfig& m) {
  switch (m.quant) {
    case QuantMethod::gptq:
    case QuantMethod::awq: {
      const double packed = m.quant_bits / 8.0;
      // one fp16 scale and one packed zero point per group of input rows, per output column
      const double group = m.quant_group_size > 0 ? m.quant_group_size : 1e18;
      return packed + (kHalf + packed) / group;
    }
    case QuantMethod::fp8:
      return 1.0 + 4.0 / (128.0 * 128.0);  // a float32 scale per 128x128 block at most
    case QuantMethod::none:
    case QuantMethod::unsupported:
      return kHalf;
  }
  return kHalf;
}

struct LayerParams {
  double linear = 0, small = 0, replicated_linear = 0, kv_proj = 0;
};

LayerParams attention_params(const ModelConfig& m, LayerKind kind) {
  LayerParams p;
  const double h = static_cast<double>(m.hidden_size);
  if (kind == LayerKind::linear_attention && m.linear_kind == LinearKind::mamba2) {
    // in_proj to z, x, B, C and dt; conv1d over x, B, C with its bias; dt_bias, A_log, D; the gated
    // norm; out_proj (Granite 4.0 H: no projection biases).
    const double bc = static_cast<double>(2 * m.linear_num_key_heads * m.linear_key_head_dim);
    const double inner = static_cast<double>(m.linear_num_value_heads * m.linear_value_head_dim);
    const double nh = static_cast<double>(m.linear_num_value_heads);
    p.linear = h * (2 * inner + bc + nh) + inner * h;
    p.small = (inner + bc) * static_cast<double>(m.linear_conv_kernel + 1) + 3 * nh + inner;
    return p;
  }
  if (kind == LayerKind::linear_attention) {  // Gated DeltaNet (Qwen3-Next)
    const double key = static_cast<double>(m.linear_num_key_heads * m.linear_key_head_dim);
    const double value = static_cast<double>(m.linear_num_value_heads * m.linear_value_head_dim);
    const double nv = static_cast<double>(m.linear_num_value_heads);
    p.linear = h * (2 * key + 2 * value) + h * 2 * nv + value * h;           // in_proj_qkvz, in_proj_ba, out_proj
    p.small = (2 * key + value) * static_cast<double>(m.linear_conv_kernel)  // depthwise conv1d
              + 2 * nv + static_cast<double>(m.linear_value_head_dim);       // dt_bias, A_log, gated norm
    return p;
  }
  const double heads = static_cast<double>(m.num_heads);
  if (m.mla) {
    const double qk = static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
    if (m.q_lora_rank > 0) {
      const double r = static_cast<double>(m.q_lora_rank);
      p.replicated_linear += h * r;
      p.small += r;
      p.linear += r * heads * qk;
    } else {
      p.linear += h * heads * qk;
    }
    const double c = static_cast<double>(m.kv_lora_rank);
    p.replicated_linear += h * (c + static_cast<double>(m.qk_rope_head_dim));        // kv_a_proj_with_mqa
    p.small += c;                                                                    // kv_a_layernorm
    p.linear += c * heads * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim);  // kv_b_proj
    p.linear += heads * static_cast<double>(m.v_head_dim) * h;                       // o_proj
    return p;
  }
  const double hd = static_cast<double>(m.head_dim);
  const double q = heads * hd, kv = static_cast<double>(m.num_kv_heads) * hd;
  p.linear = h * q * (m.attn_output_gate ? 2 : 1) + q * h;  // q_proj (with the gate), o_proj
  p.kv_proj = 2 * h * kv;
  if (m.qkv_bias || m.linear_bias) p.small += q + 2 * kv;
  if (m.linear_bias) p.small += h;  // o_proj's
  if (m.qk_norm) p.small += 2 * hd;
  return p;
}

LayerParams mlp_params(const ModelConfig& m, bool moe) {
  LayerParams p;
  const double h = static_cast<double>(m.hidden_size);
  if (!moe) {
    const double inter = static_cast<double>(m.intermediate_size);
    p.linear = (m.gated_mlp ? 3 : 2) * h * inter;  // gate, up, down; or fc1, fc2
    if (m.linear_bias) p.small += inter * (m.gated_mlp ? 2 : 1) + h;
    return p;
  }
  p.linear = static_cast<double>(m.num_experts) * 3 * h * static_cast<double>(m.moe_intermediate_size);
  p.linear += 3 * h * static_cast<double>(m.shared_expert_intermediate_size);
  p.small += h * static_cast<double>(m.num_experts);  // router
  if (m.router_bias) p.small += static_cast<double>(m.num_experts);
  if (m.shared_expert_intermediate_size > 0 && m.model_type.rfind("deepseek", 0) != 0) p.small += h;  // shared gate
  return p;
}

}  // namespace

/// Where the weights' size came from, as reports say it.
constexpr util::Name<WeightSource> kWeightSourceNames[] = {
    {WeightSource::safetensors_headers, "safetensors headers"},
    {WeightSource::index_total_size, "index total_size"},
    {WeightSource::computed, "computed from config.json"},
};

std::string_view to_string(WeightSource source) {
  return util::name_of(kWeightSourceNames, source);
}

std::optional<WeightSource> parse_weight_source(std::string_view text) {
  return util::value_of(kWeightSourceNames, text);
}

WeightBreakdown compute_weights(const ModelConfig& m) {
  WeightBreakdown w;
  const double lin = linear_bytes_per_param(m);
  const double h = static_cast<double>(m.hidden_size);
  const double norm = (m.layer_norm ? 2 : 1) * h * kHalf;  // LayerNorm keeps a bias too
  const double width = m.embed_dim > 0 ? static_cast<double>(m.embed_dim) : h;
  w.embed = static_cast<double>(m.vocab_size) * width * kHalf;
  w.lm_head = m.tie_word_embeddings ? 0 : w.embed;
  w.final_norm = m.final_norm ? norm : 0;
  w.inputs = static_cast<double>(m.learned_positions) * h * kHalf;
  w.vision = m.vision_params * kHalf;  // vLLM leaves a vision tower unquantized
  w.rope = static_cast<double>(m.rope_rows) * static_cast<double>(m.rotary_dim) * kHalf;
  if (m.embed_dim > 0) {  // OPT-350m: project_in before the layers, project_out after (no bias)
    w.inputs += width * h * kHalf;
    w.final_norm += h * width * kHalf;
  }
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const auto a = attention_params(m, m.layers[i]);
    const auto f = mlp_params(m, i < m.moe_layers.size() && m.moe_layers[i]);
    const double norms = 2 * norm;
    const double small = (a.small + f.small) * kHalf;
    const WeightBreakdown::Layer layer{(a.linear + f.linear + a.replicated_linear + a.kv_proj) * lin + small + norms,
                                       a.replicated_linear * lin + small + norms, a.kv_proj * lin};
    w.layers += layer.all;
    w.replicated += layer.replicated;
    w.kv_proj += layer.kv_proj;
    w.per_layer.push_back(layer);
  }
  return w;
}

namespace {

/// The share of the k/v projections one TP rank holds: whole heads, replicated once TP exceeds them.
double kv_share(const ModelConfig& m, int tp) {
  const double kv_heads = static_cast<double>(m.num_kv_heads);
  return (m.mla || kv_heads <= 0) ? 1.0 / tp : std::ceil(kv_heads / tp) / kv_heads;
}

/// Bytes of layers (`all`, of which `replicated` and `kv_proj`) on one TP rank.
double on_rank(double all, double replicated, double kv_proj, int tp, double share) {
  return (all - replicated - kv_proj) / tp + replicated + kv_proj * share;
}

}  // namespace

double Weights::scale() const {
  return computed.total() > 0 ? static_cast<double>(total_bytes) / computed.total() : 1.0;
}

std::uint64_t Weights::per_gpu(const ModelConfig& m, int tp, int pp) const {
  const auto& c = computed;
  if (pp > 1 && !c.per_layer.empty()) {  // the busiest stage, layer by layer as vLLM splits them
    const auto stages = per_stage(m, tp, pp);
    return *std::max_element(stages.begin(), stages.end());
  }
  const double all_layers = on_rank(c.layers, c.replicated, c.kv_proj, tp, kv_share(m, tp));
  const double layers = static_cast<double>(std::max<std::size_t>(1, m.layers.size()));
  const double stage_layers = std::ceil(layers / pp) / layers;
  const double ends =
      pp == 1 ? (c.embed + c.lm_head + c.vision) / tp + c.final_norm + c.inputs
              : std::max(c.first_stage_ends(tp), c.last_stage_ends(tp));
  return static_cast<std::uint64_t>(std::llround((all_layers * stage_layers + ends) * scale() + c.rope));
}

std::vector<std::uint64_t> Weights::per_stage(const ModelConfig& m, int tp, int pp) const {
  const auto& c = computed;
  const std::size_t n = c.per_layer.size();
  if (pp <= 1 || n == 0) return {per_gpu(m, tp, pp)};
  const double share = kv_share(m, tp);
  std::vector<std::size_t> count(static_cast<std::size_t>(pp), n / static_cast<std::size_t>(pp));
  for (std::size_t i = 0; i < n % static_cast<std::size_t>(pp); ++i) count[count.size() - 2 - i] += 1;
  std::vector<std::uint64_t> out;
  std::size_t next = 0;
  for (std::size_t s = 0; s < count.size(); ++s) {
    double bytes = 0;
    for (std::size_t i = 0; i < count[s] && next < n; ++i, ++next) {
      const auto& l = c.per_layer[next];
      bytes += on_rank(l.all, l.replicated, l.kv_proj, tp, share);
    }
    if (s == 0) bytes += c.first_stage_ends(tp);
    if (s + 1 == count.size()) bytes += c.last_stage_ends(tp);
    out.push_back(static_cast<std::uint64_t>(std::llround(bytes * scale() + c.rope)));
  }
  return out;
}

Result<Weights> count_weights(const ModelConfig& m) {
  namespace fs = std::filesystem;
  Weights w;
  w.computed = compute_weights(m);
  // every count is bounded; their product need not be (the RoPE table, outside total(), neither)
  if (!(w.computed.total() + w.computed.rope <= kMaxWeightBytes))
    return Error{
        fmt::format("{}: config.json describes {:.3g} bytes of weights, beyond the 1 PiB dcukit plan takes; "
                    "check its sizes (hidden_size, intermediate_size, the expert counts)",
                    m.path, w.computed.total())};
  w.total_bytes = static_cast<std::uint64_t>(std::llround(w.computed.total()));
  w.detail.clear();
  std::error_code ec;
  const fs::path dir = m.path.empty() ? fs::path(".") : fs::path(m.path);
  if (fs::is_directory(dir, ec)) {
    auto st = read_safetensors(dir, m.num_layers);
    if (!st) return st.error();
    if (st->files > 0) {
      w.total_bytes = st->bytes;
      w.source = WeightSource::safetensors_headers;
      w.detail = fmt::format("{} file{}, {} tensors", st->files, st->files == 1 ? "" : "s", st->tensors);
      if (st->excluded_bytes > 0)
        w.detail += fmt::format(
            "; {:.2f} GiB of multi-token-prediction layers left out (vLLM loads them only for "
            "speculative decoding)",
            static_cast<double>(st->excluded_bytes) / static_cast<double>(core::kGiB));
      return w;
    }
    const auto index = dir / "model.safetensors.index.json";
    if (fs::is_regular_file(index, ec)) {
      auto text = util::read_file(index.string(), util::kWeightsIndexInput);
      if (!text) return text.error();
      auto total = parse_index_total_size(*text, index.string());
      if (!total) return total.error();
      if (*total) {
        w.total_bytes = **total;
        w.source = WeightSource::index_total_size;
        w.detail = "model.safetensors.index.json metadata.total_size (the shards are not here)";
        return w;
      }
    }
  }
  if (m.quant == QuantMethod::unsupported)
    return Error{
        fmt::format("{}: quantization_config.quant_method '{}' is not one dcukit plan can size from "
                    "config.json (it knows gptq, awq and fp8); put the *.safetensors files or "
                    "model.safetensors.index.json next to config.json so their sizes are read",
                    m.path, m.quant_name)};
  return w;
}

}  // namespace dcukit::plan
