#include "plan/model_config.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dcukit::plan {
namespace {

using nlohmann::json;

/// An integer field, or `fallback` when absent or null. Floats such as 1e-06 never land here.
std::int64_t get_int(const json& j, const char* key, std::int64_t fallback = 0) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->is_number_integer() ? it->get<std::int64_t>() : static_cast<std::int64_t>(it->get<double>());
}

bool get_bool(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  return (it != j.end() && it->is_boolean()) ? it->get<bool>() : fallback;
}

std::string get_string(const json& j, const char* key) {
  auto it = j.find(key);
  return (it != j.end() && it->is_string()) ? it->get<std::string>() : std::string{};
}

/// The text model's fields: text_config (Qwen3.5, Llama 4 and other multimodal wrappers) over the top level.
json merged_text_config(const json& root) {
  json merged = root;
  auto it = root.find("text_config");
  if (it != root.end() && it->is_object())
    for (auto& [key, value] : it->items()) merged[key] = value;
  return merged;
}

Status read_layer_kinds(const json& j, std::string_view origin, ModelConfig& m) {
  const auto n = static_cast<std::size_t>(m.num_layers);
  m.sliding_window = get_int(j, "sliding_window");
  if (auto it = j.find("layer_types"); it != j.end() && it->is_array()) {
    if (it->size() != n)
      return Error{fmt::format("{}: layer_types lists {} layers but num_hidden_layers is {}; make them agree",
                               origin, it->size(), n)};
    for (const auto& t : *it) {
      const std::string s = t.is_string() ? t.get<std::string>() : t.dump();
      if (s == "full_attention" || s == "attention") m.layers.push_back(LayerKind::full_attention);
      else if (s == "sliding_attention") m.layers.push_back(LayerKind::sliding_attention);
      else if (s == "linear_attention") m.layers.push_back(LayerKind::linear_attention);
      else
        return Error{fmt::format("{}: layer_types has '{}', which dcukit plan does not model; the known kinds are "
                                 "full_attention, sliding_attention and linear_attention",
                                 origin, s)};
    }
    return {};
  }
  const auto interval = get_int(j, "full_attention_interval");
  if (interval > 0 && j.contains("linear_num_value_heads")) {  // Qwen3-Next: every interval-th layer is full
    for (std::size_t i = 0; i < n; ++i)
      m.layers.push_back((i + 1) % static_cast<std::size_t>(interval) == 0 ? LayerKind::full_attention
                                                                            : LayerKind::linear_attention);
    return {};
  }
  // Qwen2 style: use_sliding_window turns on SWA from layer max_window_layers up; Mistral style:
  // a sliding_window without the switch applies to every layer.
  const bool has_switch = j.contains("use_sliding_window");
  const bool swa = m.sliding_window > 0 && (has_switch ? get_bool(j, "use_sliding_window", false) : true);
  const auto first_swa = static_cast<std::size_t>(has_switch ? get_int(j, "max_window_layers", 0) : 0);
  for (std::size_t i = 0; i < n; ++i)
    m.layers.push_back(swa && i >= first_swa ? LayerKind::sliding_attention : LayerKind::full_attention);
  return {};
}

void read_moe(const json& j, ModelConfig& m) {
  m.num_experts = get_int(j, "n_routed_experts", get_int(j, "num_experts", get_int(j, "num_local_experts")));
  m.moe_layers.assign(static_cast<std::size_t>(m.num_layers), false);
  if (m.num_experts <= 0) return;
  m.experts_per_token = get_int(j, "num_experts_per_tok", get_int(j, "moe_topk"));
  m.moe_intermediate_size = get_int(j, "moe_intermediate_size", m.intermediate_size);  // Mixtral: experts are full MLPs
  const auto n_shared = get_int(j, "n_shared_experts");
  m.shared_expert_intermediate_size =
      n_shared > 0 ? n_shared * m.moe_intermediate_size : get_int(j, "shared_expert_intermediate_size");
  m.router_bias = get_string(j, "topk_method") == "noaux_tc";
  std::vector<std::int64_t> mlp_only;
  if (auto it = j.find("mlp_only_layers"); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_number_integer()) mlp_only.push_back(v.get<std::int64_t>());
  const auto first_dense = get_int(j, "first_k_dense_replace");
  const auto freq = std::max<std::int64_t>(1, get_int(j, "moe_layer_freq", 1));
  const auto step = std::max<std::int64_t>(1, get_int(j, "decoder_sparse_step", 1));
  for (std::int64_t i = 0; i < m.num_layers; ++i) {
    bool moe = i >= first_dense && i % freq == 0 && (i + 1) % step == 0;
    if (std::find(mlp_only.begin(), mlp_only.end(), i) != mlp_only.end()) moe = false;
    m.moe_layers[static_cast<std::size_t>(i)] = moe;
  }
}

void read_quantization(const json& root, const json& j, ModelConfig& m) {
  const json* found = nullptr;
  if (auto it = j.find("quantization_config"); it != j.end()) found = &*it;
  else if (auto rt = root.find("quantization_config"); rt != root.end()) found = &*rt;
  if (found == nullptr || !found->is_object()) return;
  const auto& q = *found;
  m.quant_name = get_string(q, "quant_method");
  const auto bits = get_int(q, "bits", get_int(q, "w_bit", 0));
  const auto group = get_int(q, "group_size", get_int(q, "q_group_size", 128));
  if (m.quant_name == "gptq" || m.quant_name == "awq") {
    m.quant = QuantMethod::gptq;
    if (m.quant_name == "awq") m.quant = QuantMethod::awq;
    m.quant_bits = static_cast<int>(bits > 0 ? bits : 4);
    m.quant_group_size = static_cast<int>(group);
  } else if (m.quant_name == "fp8") {
    m.quant = QuantMethod::fp8;
    m.quant_bits = 8;
  } else {
    m.quant = QuantMethod::unsupported;
  }
}

} // namespace

std::string_view to_string(LayerKind kind) {
  switch (kind) {
    case LayerKind::full_attention: return "full_attention";
    case LayerKind::sliding_attention: return "sliding_attention";
    case LayerKind::linear_attention: return "linear_attention";
  }
  return "?";
}

int ModelConfig::count(LayerKind kind) const {
  return static_cast<int>(std::count(layers.begin(), layers.end(), kind));
}

Result<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin) {
  json root;
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {  // caught here: errors leave this function as values
    return Error{fmt::format("{} is not valid JSON ({}); a Hugging Face config.json is one JSON object: "
                             "re-download it, or point --model at the model's directory",
                             origin, e.what())};
  }
  if (!root.is_object())
    return Error{fmt::format("{} holds JSON but not an object; a Hugging Face config.json is one JSON object: "
                             "re-download it, or point --model at the model's directory", origin)};
  const json j = merged_text_config(root);
  ModelConfig m;
  m.model_type = get_string(j, "model_type");
  if (auto it = root.find("architectures"); it != root.end() && it->is_array() && !it->empty() && it->front().is_string())
    m.architecture = it->front().get<std::string>();
  m.torch_dtype = get_string(j, "torch_dtype");
  if (m.torch_dtype.empty()) m.torch_dtype = get_string(j, "dtype");
  if (m.torch_dtype.empty()) m.torch_dtype = get_string(root, "torch_dtype");
  if (m.torch_dtype.empty()) m.torch_dtype = "bfloat16";

  m.hidden_size = get_int(j, "hidden_size", get_int(j, "d_model"));
  m.num_layers = get_int(j, "num_hidden_layers", get_int(j, "n_layer"));
  m.num_heads = get_int(j, "num_attention_heads", get_int(j, "n_head"));
  m.vocab_size = get_int(j, "vocab_size");
  std::vector<std::string> missing;
  if (m.hidden_size <= 0) missing.push_back("hidden_size");
  if (m.num_layers <= 0) missing.push_back("num_hidden_layers");
  if (m.num_heads <= 0) missing.push_back("num_attention_heads");
  if (m.vocab_size <= 0) missing.push_back("vocab_size");
  if (!missing.empty())
    return Error{fmt::format("{} (model_type '{}') lacks {}: dcukit plan models decoder-only attention models "
                             "(Llama, Qwen2/3, Qwen3-Next, DeepSeek MLA, Mixtral); for a multimodal model the "
                             "text fields may sit under text_config",
                             origin, m.model_type.empty() ? "unset" : m.model_type, fmt::join(missing, ", "))};
  m.num_kv_heads = get_int(j, "num_key_value_heads", m.num_heads);
  m.head_dim = get_int(j, "head_dim", m.hidden_size / m.num_heads);
  m.intermediate_size = get_int(j, "intermediate_size");
  m.max_position_embeddings = get_int(j, "max_position_embeddings");
  // vLLM's derived limit: YaRN stretches original_max_position_embeddings by its factor, linear
  // scaling stretches max_position_embeddings; llama3 and dynamic NTK leave it.
  if (auto rs = j.find("rope_scaling"); rs != j.end() && rs->is_object()) {
    std::string type = get_string(*rs, "rope_type");
    if (type.empty()) type = get_string(*rs, "type");
    const double factor = rs->contains("factor") && (*rs)["factor"].is_number() ? (*rs)["factor"].get<double>() : 1.0;
    const auto original = get_int(*rs, "original_max_position_embeddings", m.max_position_embeddings);
    if (type == "yarn" && factor > 1) m.max_position_embeddings = static_cast<std::int64_t>(original * factor);
    else if (type == "linear" && factor > 1) m.max_position_embeddings = static_cast<std::int64_t>(m.max_position_embeddings * factor);
  }
  m.tie_word_embeddings = get_bool(j, "tie_word_embeddings", get_bool(root, "tie_word_embeddings", false));
  m.qkv_bias = get_bool(j, "attention_bias", m.model_type == "qwen2" || m.model_type == "qwen2_moe");
  m.qk_norm = m.model_type.rfind("qwen3", 0) == 0;
  m.attn_output_gate = get_bool(j, "attn_output_gate", m.model_type == "qwen3_next");

  m.kv_lora_rank = get_int(j, "kv_lora_rank");
  m.mla = m.kv_lora_rank > 0;
  if (m.mla) {
    m.q_lora_rank = get_int(j, "q_lora_rank");
    m.qk_nope_head_dim = get_int(j, "qk_nope_head_dim");
    m.qk_rope_head_dim = get_int(j, "qk_rope_head_dim");
    m.v_head_dim = get_int(j, "v_head_dim", m.qk_nope_head_dim);
    if (m.qk_rope_head_dim <= 0 || m.qk_nope_head_dim <= 0)
      return Error{fmt::format("{}: kv_lora_rank makes this an MLA model, but qk_rope_head_dim or qk_nope_head_dim "
                               "is missing; DeepSeek-V2/V3 configs carry both",
                               origin)};
  }

  if (auto st = read_layer_kinds(j, origin, m); !st) return st.error();
  if (m.hybrid()) {
    m.linear_num_key_heads = get_int(j, "linear_num_key_heads");
    m.linear_num_value_heads = get_int(j, "linear_num_value_heads");
    m.linear_key_head_dim = get_int(j, "linear_key_head_dim");
    m.linear_value_head_dim = get_int(j, "linear_value_head_dim");
    m.linear_conv_kernel = get_int(j, "linear_conv_kernel_dim", 4);
    if (m.linear_num_key_heads <= 0 || m.linear_num_value_heads <= 0 || m.linear_key_head_dim <= 0 ||
        m.linear_value_head_dim <= 0)
      return Error{fmt::format("{}: layer_types has linear_attention layers but the linear_num_key_heads, "
                               "linear_num_value_heads, linear_key_head_dim and linear_value_head_dim fields "
                               "(Qwen3-Next's Gated DeltaNet) are not all there; dcukit plan cannot size their state",
                               origin)};
  }
  if (m.count(LayerKind::sliding_attention) > 0 && m.sliding_window <= 0)
    return Error{fmt::format("{}: sliding_attention layers need a positive sliding_window", origin)};
  read_moe(j, m);
  read_quantization(root, j, m);
  if (m.intermediate_size <= 0 && !m.moe())
    return Error{fmt::format("{}: intermediate_size is missing, so the MLP cannot be sized", origin)};
  return m;
}

Result<ModelConfig> load_model_config(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) file = path / "config.json";
  if (!fs::is_regular_file(file, ec)) {
    std::string hint = "pass --model with a Hugging Face model directory (the one holding config.json)";
    if (fs::is_directory(path, ec)) {
      for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec || it.depth() > 3) break;
        if (it->path().filename() == "config.json") {
          hint = fmt::format("the nearest one is {}: pass --model {}", it->path().string(), it->path().parent_path().string());
          break;
        }
      }
    }
    return Error{fmt::format("--model {}: no config.json there; {}", path.string(), hint)};
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return Error{fmt::format("--model {}: cannot read {}", path.string(), file.string())};
  auto parsed = parse_model_config(text.str(), file.string());
  if (!parsed) return parsed;
  auto dir = fs::weakly_canonical(fs::absolute(file, ec), ec).parent_path();
  parsed->path = dir.string();
  parsed->name = dir.filename().string();
  if (parsed->name.empty()) parsed->name = parsed->architecture;
  return parsed;
}

} // namespace dcukit::plan
