#include "plan/weights.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace dcukit::plan {
namespace {

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
    case QuantMethod::fp8: return 1.0 + 4.0 / (128.0 * 128.0);  // a float32 scale per 128x128 block at most
    case QuantMethod::none:
    case QuantMethod::unsupported: return kHalf;
  }
  return kHalf;
}

struct LayerParams {
  double linear = 0, small = 0, replicated_linear = 0, kv_proj = 0;
};

LayerParams attention_params(const ModelConfig& m, LayerKind kind) {
  LayerParams p;
  const double h = static_cast<double>(m.hidden_size);
  if (kind == LayerKind::linear_attention) {  // Gated DeltaNet (Qwen3-Next)
    const double key = static_cast<double>(m.linear_num_key_heads * m.linear_key_head_dim);
    const double value = static_cast<double>(m.linear_num_value_heads * m.linear_value_head_dim);
    const double nv = static_cast<double>(m.linear_num_value_heads);
    p.linear = h * (2 * key + 2 * value) + h * 2 * nv + value * h;  // in_proj_qkvz, in_proj_ba, out_proj
    p.small = (2 * key + value) * static_cast<double>(m.linear_conv_kernel)  // depthwise conv1d
              + 2 * nv + static_cast<double>(m.linear_value_head_dim);      // dt_bias, A_log, gated norm
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
    p.replicated_linear += h * (c + static_cast<double>(m.qk_rope_head_dim));  // kv_a_proj_with_mqa
    p.small += c;                                                              // kv_a_layernorm
    p.linear += c * heads * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim);  // kv_b_proj
    p.linear += heads * static_cast<double>(m.v_head_dim) * h;                       // o_proj
    return p;
  }
  const double hd = static_cast<double>(m.head_dim);
  const double q = heads * hd, kv = static_cast<double>(m.num_kv_heads) * hd;
  p.linear = h * q * (m.attn_output_gate ? 2 : 1) + q * h;  // q_proj (with the gate), o_proj
  p.kv_proj = 2 * h * kv;
  if (m.qkv_bias) p.small += q + 2 * kv;
  if (m.qk_norm) p.small += 2 * hd;
  return p;
}

LayerParams mlp_params(const ModelConfig& m, bool moe) {
  LayerParams p;
  const double h = static_cast<double>(m.hidden_size);
  if (!moe) {
    p.linear = 3 * h * static_cast<double>(m.intermediate_size);  // gate, up, down
    return p;
  }
  p.linear = static_cast<double>(m.num_experts) * 3 * h * static_cast<double>(m.moe_intermediate_size);
  p.linear += 3 * h * static_cast<double>(m.shared_expert_intermediate_size);
  p.small += h * static_cast<double>(m.num_experts);  // router
  if (m.router_bias) p.small += static_cast<double>(m.num_experts);
  if (m.shared_expert_intermediate_size > 0 && m.model_type.rfind("deepseek", 0) != 0) p.small += h;  // shared gate
  return p;
}

} // namespace

std::string_view to_string(WeightSource source) {
  switch (source) {
    case WeightSource::safetensors_headers: return "safetensors headers";
    case WeightSource::index_total_size: return "index total_size";
    case WeightSource::computed: return "computed from config.json";
  }
  return "?";
}

WeightBreakdown compute_weights(const ModelConfig& m) {
  WeightBreakdown w;
  const double lin = linear_bytes_per_param(m);
  const double h = static_cast<double>(m.hidden_size);
  w.embed = static_cast<double>(m.vocab_size) * h * kHalf;
  w.lm_head = m.tie_word_embeddings ? 0 : w.embed;
  w.final_norm = h * kHalf;
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    const auto a = attention_params(m, m.layers[i]);
    const auto f = mlp_params(m, i < m.moe_layers.size() && m.moe_layers[i]);
    const double norms = 2 * h * kHalf;
    const double small = (a.small + f.small) * kHalf;
    w.layers += (a.linear + f.linear + a.replicated_linear + a.kv_proj) * lin + small + norms;
    w.replicated += a.replicated_linear * lin + small + norms;
    w.kv_proj += a.kv_proj * lin;
  }
  return w;
}

Result<SafetensorsTotal> read_safetensors(const std::filesystem::path& dir, std::int64_t num_layers) {
  namespace fs = std::filesystem;
  SafetensorsTotal total;
  std::error_code ec;
  const std::regex layer_re(R"((?:^|\.)layers\.(\d+)\.)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".safetensors") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    unsigned char len_bytes[8] = {};
    if (!in.read(reinterpret_cast<char*>(len_bytes), 8))
      return Error{fmt::format("{}: shorter than the 8-byte safetensors header length; the download is incomplete",
                               file.string())};
    std::uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | len_bytes[i];
    if (len == 0 || len > (100u << 20))
      return Error{fmt::format("{}: header length {} is not plausible (safetensors headers are under 100 MiB); "
                               "is this a Git LFS pointer instead of the file?",
                               file.string(), len)};
    std::string header(len, '\0');
    if (!in.read(header.data(), static_cast<std::streamsize>(len)))
      return Error{fmt::format("{}: the header is cut short; the download is incomplete", file.string())};
    const auto j = nlohmann::json::parse(header, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return Error{fmt::format("{}: the safetensors header is not valid JSON", file.string())};
    ++total.files;
    for (const auto& [name, t] : j.items()) {
      if (name == "__metadata__" || !t.is_object()) continue;
      const auto& off = t.value("data_offsets", nlohmann::json::array());
      if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
        return Error{fmt::format("{}: tensor {} has no valid data_offsets", file.string(), name)};
      const auto stored = off[1].get<std::uint64_t>() - off[0].get<std::uint64_t>();
      const std::string dtype = t.value("dtype", "");
      std::uint64_t served = stored;
      if (dtype == "F32") served = stored / 2;  // vLLM loads float checkpoints into 16-bit
      ++total.tensors;
      total.stored_bytes += stored;
      std::smatch match;
      const bool mtp = name.rfind("mtp.", 0) == 0 || name.rfind("model.mtp.", 0) == 0 ||
                       (std::regex_search(name, match, layer_re) && std::stoll(match[1].str()) >= num_layers);
      if (mtp) total.excluded_bytes += served;
      else total.bytes += served;
    }
  }
  return total;
}

std::uint64_t Weights::per_gpu(const ModelConfig& m, int tp, int pp) const {
  const auto& c = computed;
  const double kv_heads = static_cast<double>(m.num_kv_heads);
  const double kv_share = (m.mla || kv_heads <= 0) ? 1.0 / tp : std::ceil(kv_heads / tp) / kv_heads;
  const double split = c.layers - c.replicated - c.kv_proj;
  const double all_layers = split / tp + c.replicated + c.kv_proj * kv_share;
  const double layers = static_cast<double>(std::max<std::size_t>(1, m.layers.size()));
  const double stage_layers = std::ceil(layers / pp) / layers;
  const double ends = pp == 1 ? (c.embed + c.lm_head) / tp + c.final_norm : std::max(c.embed, c.lm_head) / tp + c.final_norm;
  const double per = all_layers * stage_layers + ends;
  const double scale = c.total() > 0 ? static_cast<double>(total_bytes) / c.total() : 1.0;
  return static_cast<std::uint64_t>(std::llround(per * scale));
}

Result<Weights> count_weights(const ModelConfig& m) {
  namespace fs = std::filesystem;
  Weights w;
  w.computed = compute_weights(m);
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
        w.detail += fmt::format("; {:.2f} GiB of multi-token-prediction layers left out (vLLM loads them only for "
                                "speculative decoding)", static_cast<double>(st->excluded_bytes) / (1u << 30));
      return w;
    }
    std::ifstream in(dir / "model.safetensors.index.json");
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      const auto j = nlohmann::json::parse(text.str(), nullptr, false);
      if (j.is_discarded())
        return Error{fmt::format("{}: not valid JSON; re-download it", (dir / "model.safetensors.index.json").string())};
      if (j.contains("metadata") && j["metadata"].contains("total_size") && j["metadata"]["total_size"].is_number()) {
        w.total_bytes = j["metadata"]["total_size"].get<std::uint64_t>();
        w.source = WeightSource::index_total_size;
        w.detail = "model.safetensors.index.json metadata.total_size (the shards are not here)";
        return w;
      }
    }
  }
  if (m.quant == QuantMethod::unsupported)
    return Error{fmt::format("{}: quantization_config.quant_method '{}' is not one dcukit plan can size from "
                             "config.json (it knows gptq, awq and fp8); put the *.safetensors files or "
                             "model.safetensors.index.json next to config.json so their sizes are read",
                             m.path, m.quant_name)};
  return w;
}

} // namespace dcukit::plan
