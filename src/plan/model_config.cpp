#include "plan/model_config.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "plan/fields.h"
#include "plan/model_extras.h"
#include "plan/model_layers.h"
#include "util/files.h"
#include "util/json_text.h"
#include "util/names.h"

namespace dcukit::plan {
namespace {

using nlohmann::json;

// More bounds on config.json's counts (model_config.h has the layers' and widths').
constexpr std::int64_t kMaxMlp = 1 << 24;    // MLP widths
constexpr std::int64_t kMaxVocab = 1 << 24;
constexpr std::int64_t kMaxExperts = 1 << 16;

/// What transformers' LlamaConfig gives a field its config.json leaves out. A wrapper's text_config
/// (LLaVA-1.5's) may hold only what differs from them; the wrapper's own top-level fields (the
/// vision tower's) are not the text model's.
const json& llama_defaults() {
  static const json k = {{"vocab_size", 32000},          {"hidden_size", 4096},
                         {"intermediate_size", 11008},   {"num_hidden_layers", 32},
                         {"num_attention_heads", 32},    {"max_position_embeddings", 2048},
                         {"tie_word_embeddings", false}, {"rope_theta", 10000.0}};
  return k;
}

/// What transformers' Gemma3TextConfig gives the fields Gemma 3's published text_config leaves out
/// (gemma-3-27b-it states neither its vocabulary nor that it ties the output to the embedding).
const json& gemma3_defaults() {
  static const json k = {{"vocab_size", 262208},        {"max_position_embeddings", 131072},
                         {"sliding_window_pattern", 6}, {"tie_word_embeddings", true},
                         {"head_dim", 256},             {"rope_theta", 1000000.0}};
  return k;
}

/// The text model's fields: text_config (Qwen3.5, Llama 4 and other multimodal wrappers) over the top level.
json merged_text_config(const json& root) {
  json merged = root;
  auto it = root.find("text_config");
  if (it == root.end() || !it->is_object()) return merged;
  for (auto& [key, value] : it->items()) merged[key] = value;
  const std::string type = it->value("model_type", "");
  if (type == "llama" || type == "gemma3_text")
    for (auto& [key, value] : (type == "llama" ? llama_defaults() : gemma3_defaults()).items())
      if (!it->contains(key)) merged[key] = value;
  return merged;
}

/// Decoders whose MLP is two matrices around an activation (fc1, fc2), with LayerNorm and biases.
bool ungated_family(std::string_view model_type) {
  return model_type == "opt" || model_type == "phi" || model_type == "gpt_neox" || model_type == "starcoder2";
}

/// OPT's names and habits: ffn_dim, learned positions offset by 2, a token embedding of
/// word_embed_proj_dim projected in and out, biases unless enable_bias is false, tied output.
void read_ungated(const json& j, FieldReader& f, ModelConfig& m) {
  m.gated_mlp = false;
  m.layer_norm = true;
  m.linear_bias = f.boolean(j, "use_bias", f.boolean(j, "enable_bias", true));
  if (m.model_type != "opt") return;
  m.intermediate_size = f.integer(j, "ffn_dim", m.intermediate_size, 0, kMaxMlp);
  m.learned_positions = m.max_position_embeddings + 2;
  const auto proj = f.integer(j, "word_embed_proj_dim", m.hidden_size, 0, kMaxWidth);
  if (proj > 0 && proj != m.hidden_size) m.embed_dim = proj;
  // OPT's decoder builds final_layer_norm only for pre-norm layers (OPT-350m is post-norm).
  m.final_norm = f.boolean(j, "do_layer_norm_before", true) && !f.boolean(j, "_remove_final_layer_norm", false);
}

void read_moe(const json& j, FieldReader& f, ModelConfig& m) {
  m.num_experts =
      f.integer(j, "n_routed_experts",
                f.integer(j, "num_experts", f.integer(j, "num_local_experts", 0, 0, kMaxExperts), 0, kMaxExperts), 0,
                kMaxExperts);
  m.moe_layers.assign(static_cast<std::size_t>(m.num_layers), false);
  if (m.num_experts <= 0) return;
  m.experts_per_token =
      f.integer(j, "num_experts_per_tok", f.integer(j, "moe_topk", 0, 0, kMaxExperts), 0, kMaxExperts);
  if (m.experts_per_token > m.num_experts)
    f.fail(fmt::format("num_experts_per_tok {} exceeds the {} experts", m.experts_per_token, m.num_experts));
  // Mixtral: experts are full MLPs
  m.moe_intermediate_size = f.integer(j, "moe_intermediate_size", m.intermediate_size, 0, kMaxMlp);
  const auto n_shared = f.integer(j, "n_shared_experts", 0, 0, kMaxExperts);
  m.shared_expert_intermediate_size = n_shared > 0 ? n_shared * m.moe_intermediate_size
                                                   : f.integer(j, "shared_expert_intermediate_size", 0, 0, kMaxMlp);
  m.router_bias = f.text(j, "topk_method") == "noaux_tc";
  // Llama 4: every interleave_moe_layer_step-th layer is MoE, with one shared expert as wide as the
  // routed ones (intermediate_size); the dense layers between use intermediate_size_mlp.
  const auto llama4_step = f.integer(j, "interleave_moe_layer_step", 0, 0, kMaxLayers);
  if (llama4_step > 0) {
    m.shared_expert_intermediate_size = m.moe_intermediate_size;
    m.intermediate_size = f.integer(j, "intermediate_size_mlp", m.intermediate_size, 0, kMaxMlp);
  }
  std::vector<std::int64_t> mlp_only;
  if (auto it = j.find("mlp_only_layers"); it != j.end() && it->is_array())
    for (const auto& v : *it)
      if (v.is_number_integer()) mlp_only.push_back(v.get<std::int64_t>());
  const auto first_dense = f.integer(j, "first_k_dense_replace", 0, 0, kMaxLayers);
  const auto freq = std::max<std::int64_t>(1, f.integer(j, "moe_layer_freq", 1, 0, kMaxLayers));
  const auto step =
      std::max<std::int64_t>(1, llama4_step > 0 ? llama4_step : f.integer(j, "decoder_sparse_step", 1, 0, kMaxLayers));
  for (std::int64_t i = 0; i < m.num_layers; ++i) {
    bool moe = i >= first_dense && i % freq == 0 && (i + 1) % step == 0;
    if (std::find(mlp_only.begin(), mlp_only.end(), i) != mlp_only.end()) moe = false;
    m.moe_layers[static_cast<std::size_t>(i)] = moe;
  }
}

void read_quantization(const json& root, const json& j, FieldReader& f, ModelConfig& m) {
  const json* found = nullptr;
  if (auto it = j.find("quantization_config"); it != j.end())
    found = &*it;
  else if (auto rt = root.find("quantization_config"); rt != root.end())
    found = &*rt;
  if (found == nullptr || !found->is_object()) return;
  const auto& q = *found;
  m.quant_name = f.text(q, "quant_method");
  constexpr std::string_view where = "quantization_config.";
  const auto bits = f.integer(q, "bits", f.integer(q, "w_bit", 0, 0, 16, where), 0, 16, where);
  const auto group =
      f.integer(q, "group_size", f.integer(q, "q_group_size", 128, -1, kMaxMlp, where), -1, kMaxMlp, where);
  if (m.quant_name == "gptq" || m.quant_name == "awq") {
    m.quant = m.quant_name == "awq" ? QuantMethod::awq : QuantMethod::gptq;
    m.quant_bits = static_cast<int>(bits > 0 ? bits : 4);
    m.quant_group_size = static_cast<int>(group);
  } else if (m.quant_name == "fp8") {
    m.quant = QuantMethod::fp8;
    m.quant_bits = 8;
  } else {
    m.quant = QuantMethod::unsupported;
  }
}

/// vLLM's derived context limit: a RoPE scaling factor stretches max_position_embeddings (YaRN's
/// original_max_position_embeddings), except llama3, su and longrope, which are already stretched,
/// and Gemma 3, whose limit vLLM takes as scaled already.
void read_rope_scaling(const RopeScaling& rs, FieldReader& f, ModelConfig& m) {
  if (!rs.fields) return;
  if (rs.type == "llama3" || rs.type == "su" || rs.type == "longrope" ||
      m.model_type.find("gemma3") != std::string::npos || !(rs.factor > 1))
    return;
  const double stretched = static_cast<double>(rs.type == "yarn" ? rs.original : m.max_position_embeddings) * rs.factor;
  if (stretched > static_cast<double>(kMaxContext))
    return f.fail(
        fmt::format("{} stretches the context to {:.0f} tokens, beyond the {} dcukit plan takes; "
                    "check factor and original_max_position_embeddings",
                    rs.where.substr(0, rs.where.size() - 1), stretched, kMaxContext));
  m.max_position_embeddings = static_cast<std::int64_t>(stretched);
}

/// The attention heads: KV heads that divide the heads, a positive head width.
void check_attention(FieldReader& f, ModelConfig& m) {
  if (m.num_kv_heads < 1 || m.num_kv_heads > m.num_heads || m.num_heads % m.num_kv_heads != 0)
    f.fail(
        fmt::format("num_key_value_heads is {} with {} attention heads; it must be at least 1 and divide "
                    "num_attention_heads (GQA groups whole heads)",
                    m.num_kv_heads, m.num_heads));
  if (m.head_dim < 1)
    f.fail(
        fmt::format("the head width is {} (head_dim, or hidden_size {} / num_attention_heads {}); it must be "
                    "a positive number of channels",
                    m.head_dim, m.hidden_size, m.num_heads));
}

}  // namespace

constexpr util::Name<LayerKind> kLayerKindNames[] = {
    {LayerKind::full_attention, "full_attention"},
    {LayerKind::sliding_attention, "sliding_attention"},
    {LayerKind::linear_attention, "linear_attention"},
};

std::string_view to_string(LayerKind kind) {
  return util::name_of(kLayerKindNames, kind, "?");
}

int ModelConfig::count(LayerKind kind) const {
  return static_cast<int>(std::count(layers.begin(), layers.end(), kind));
}

Result<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin) {
  json root;
  if (util::json_depth(json_text) > util::kMaxJsonDepth)
    return Error{fmt::format("{} nests deeper than {} levels; a Hugging Face config.json nests under 5: "
                             "re-download it",
                             origin, util::kMaxJsonDepth)};
  try {
    root = json::parse(json_text.begin(), json_text.end());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number such as 1e400
    return Error{
        fmt::format("{} is not valid JSON ({}); a Hugging Face config.json is one JSON object: "
                    "re-download it, or point --model at the model's directory",
                    origin, e.what())};
  }
  if (!root.is_object())
    return Error{
        fmt::format("{} holds JSON but not an object; a Hugging Face config.json is one JSON object: "
                    "re-download it, or point --model at the model's directory",
                    origin)};
  const json j = merged_text_config(root);
  FieldReader f{std::string(origin)};
  ModelConfig m;
  m.model_type = f.text(j, "model_type");
  if (auto it = root.find("architectures");
      it != root.end() && it->is_array() && !it->empty() && it->front().is_string())
    m.architecture = it->front().get<std::string>();
  m.torch_dtype = f.text(j, "torch_dtype");
  if (m.torch_dtype.empty()) m.torch_dtype = f.text(j, "dtype");
  if (m.torch_dtype.empty()) m.torch_dtype = f.text(root, "torch_dtype");
  if (m.torch_dtype.empty()) m.torch_dtype = "bfloat16";

  m.hidden_size = f.integer(j, "hidden_size", f.integer(j, "d_model", 0, 0, kMaxWidth), 0, kMaxWidth);
  m.num_layers = f.integer(j, "num_hidden_layers", f.integer(j, "n_layer", 0, 0, kMaxLayers), 0, kMaxLayers);
  m.num_heads = f.integer(j, "num_attention_heads", f.integer(j, "n_head", 0, 0, kMaxWidth), 0, kMaxWidth);
  m.vocab_size = f.integer(j, "vocab_size", 0, 0, kMaxVocab);
  if (!f.ok()) return f.status().error();
  std::vector<std::string> missing;
  if (m.hidden_size <= 0) missing.push_back("hidden_size");
  if (m.num_layers <= 0) missing.push_back("num_hidden_layers");
  if (m.num_heads <= 0) missing.push_back("num_attention_heads");
  if (m.vocab_size <= 0) missing.push_back("vocab_size");
  if (!missing.empty())
    return Error{
        fmt::format("{} (model_type '{}') lacks {}: dcukit plan models decoder-only attention models "
                    "(Llama, Qwen2/3, Qwen3-Next, DeepSeek MLA, Mixtral); for a multimodal model the "
                    "text fields may sit under text_config",
                    origin, m.model_type.empty() ? "unset" : m.model_type, fmt::join(missing, ", "))};
  m.num_kv_heads = f.integer(j, "num_key_value_heads", m.num_heads, -kMaxWidth, kMaxWidth);
  m.head_dim = f.integer(j, "head_dim", m.hidden_size / m.num_heads, -kMaxWidth, kMaxWidth);
  m.intermediate_size = f.integer(j, "intermediate_size", 0, 0, kMaxMlp);
  m.max_position_embeddings = f.integer(j, "max_position_embeddings", 0, 0, kMaxContext);
  const auto rope = read_rope_scaling_fields(j, f, m.max_position_embeddings);
  read_rope_scaling(rope, f, m);
  // transformers' PretrainedConfig ties by default; LlamaConfig, Qwen2Config and most others say false.
  const bool tied_default = m.model_type == "opt";
  m.tie_word_embeddings =
      f.boolean(j, "tie_word_embeddings", f.boolean(root, "tie_word_embeddings", tied_default));
  if (ungated_family(m.model_type)) read_ungated(j, f, m);
  m.qkv_bias = f.boolean(j, "attention_bias", m.model_type == "qwen2" || m.model_type == "qwen2_moe");
  m.qk_norm = m.model_type.rfind("qwen3", 0) == 0;
  m.attn_output_gate = f.boolean(j, "attn_output_gate", m.model_type == "qwen3_next");

  m.kv_lora_rank = f.integer(j, "kv_lora_rank", 0, 0, kMaxWidth);
  m.mla = m.kv_lora_rank > 0;
  if (m.mla) {
    m.q_lora_rank = f.integer(j, "q_lora_rank", 0, 0, kMaxWidth);
    m.qk_nope_head_dim = f.integer(j, "qk_nope_head_dim", 0, 0, kMaxWidth);
    m.qk_rope_head_dim = f.integer(j, "qk_rope_head_dim", 0, 0, kMaxWidth);
    m.v_head_dim = f.integer(j, "v_head_dim", m.qk_nope_head_dim, 1, kMaxWidth);
    if (f.ok() && (m.qk_rope_head_dim <= 0 || m.qk_nope_head_dim <= 0))
      return Error{
          fmt::format("{}: kv_lora_rank makes this an MLA model, but qk_rope_head_dim or qk_nope_head_dim "
                      "is missing; DeepSeek-V2/V3 configs carry both",
                      origin)};
  }
  check_attention(f, m);
  if (!f.ok()) return f.status().error();

  read_layer_kinds(j, f, m);
  if (!f.ok()) return f.status().error();
  if (auto e = read_linear_state(j, f, m, origin); !e.ok()) return e.error();
  if (m.count(LayerKind::sliding_attention) > 0 && m.sliding_window <= 0)
    return Error{fmt::format("{}: sliding_attention layers need a positive sliding_window", origin)};
  read_moe(j, f, m);
  read_quantization(root, j, f, m);
  read_model_extras(root, j, rope, f, m);
  if (!f.ok()) return f.status().error();
  if (m.intermediate_size <= 0 && !m.moe())
    return Error{fmt::format("{}: intermediate_size{} is missing, so the MLP cannot be sized", origin,
                             m.model_type == "opt" ? " (OPT's ffn_dim)" : "")};
  return m;
}

Result<ModelConfig> load_model_config(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) file = path / "config.json";
  if (!fs::is_regular_file(file, ec)) {
    if (fs::exists(fs::symlink_status(file, ec)) && file != path)
      return Error{
          fmt::format("--model {}: {} is there but is not a readable file (a folder, or a link to nothing); "
                      "put the model's config.json there",
                      path.string(), file.string())};
    std::string hint = "pass --model with a Hugging Face model directory (the one holding config.json)";
    if (fs::is_directory(path, ec)) {
      int seen = 0;  // a --model of / must not walk the whole disk
      for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator() && ++seen < 20000; it.increment(ec)) {
        if (it.depth() >= 3) it.disable_recursion_pending();
        const fs::path dir = it->path().parent_path();
        if (it->path().filename() == "config.json" && it->is_regular_file(ec) && !fs::equivalent(dir, path, ec)) {
          hint = fmt::format("the nearest one is {}: pass --model {}", it->path().string(), dir.string());
          break;
        }
      }
    }
    return Error{fmt::format("--model {}: no config.json there; {}", path.string(), hint)};
  }
  auto text = util::read_file(file.string(), util::kModelConfigInput);
  if (!text) return Error{fmt::format("--model {}: {}", path.string(), text.error().message)};
  auto parsed = parse_model_config(*text, file.string());
  if (!parsed) return parsed;
  auto dir = fs::weakly_canonical(fs::absolute(file, ec), ec).parent_path();
  parsed->path = dir.string();
  parsed->name = dir.filename().string();
  if (parsed->name.empty()) parsed->name = parsed->architecture;
  return parsed;
}

}  // namespace dcukit::plan
