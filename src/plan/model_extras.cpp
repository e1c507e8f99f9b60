#include "plan/model_extras.h"

#include <fmt/format.h>

#include <string>

namespace dcukit::plan {
namespace {

using json = nlohmann::json;
constexpr std::int64_t kMaxVisionWidth = 1 << 20;
constexpr std::int64_t kMaxVisionDepth = 1 << 12;
constexpr std::string_view kVisionWhere = "vision_config.";

/// Parameters of a vision tower: a ViT body of `depth` blocks (q, k, v, o and a two- or three-matrix
/// MLP), its patch and position embeddings, and the projector into the text model's width, in the
/// families vLLM serves: Qwen2/2.5/3-VL and Qwen3.5 (a merger of spatial_merge_size² patches, and
/// one a deepstack layer), Llama 4 (pixel shuffle, then a projector), LLaVA, Pixtral/Mistral 3 and
/// Gemma 3 (one or two linears). Biases and norms are left out: they are below a thousandth.
double vision_tower_params(const json& root, const json& v, FieldReader& f, std::int64_t text_hidden,
                           ModelConfig::VisionShape& shape) {
  const std::string type = f.text(v, "model_type");
  const std::string family = f.text(root, "model_type");
  const double depth =
      static_cast<double>(f.integer(v, "depth", f.integer(v, "num_hidden_layers", 0, 0, kMaxVisionDepth, kVisionWhere),
                                    0, kMaxVisionDepth, kVisionWhere));
  // Qwen2-VL names the tower's width embed_dim and its output hidden_size.
  const bool qwen2 = v.contains("embed_dim");
  const double h = static_cast<double>(qwen2 ? f.integer(v, "embed_dim", 0, 0, kMaxVisionWidth, kVisionWhere)
                                             : f.integer(v, "hidden_size", 0, 0, kMaxVisionWidth, kVisionWhere));
  if (depth <= 0 || h <= 0) return 0;
  const double inter = qwen2 ? h * f.number(v, "mlp_ratio", 4, 0, 64, kVisionWhere)
                             : static_cast<double>(f.integer(v, "intermediate_size", 4 * static_cast<std::int64_t>(h),
                                                             0, kMaxVisionWidth, kVisionWhere));
  // SiLU towers are gated (Pixtral, Qwen2.5-VL, whose vision_config may not name its type); GELU
  // ones (CLIP, SigLIP, Qwen3-VL, Llama 4) are not.
  const bool gated =
      f.text(v, "hidden_act") == "silu" || type == "pixtral" || type == "qwen2_5_vl" || family == "qwen2_5_vl";
  double p = depth * (4 * h * h + (gated ? 3 : 2) * h * inter);
  const auto patch = f.integer(v, "patch_size", 14, 1, 1024, kVisionWhere);
  const auto channels =
      f.integer(v, "in_channels",
                f.integer(v, "in_chans", f.integer(v, "num_channels", 3, 1, 64, kVisionWhere), 1, 64, kVisionWhere), 1,
                64, kVisionWhere);
  const auto values = channels * patch * patch * f.integer(v, "temporal_patch_size", 1, 1, 64, kVisionWhere);
  p += static_cast<double>(values) * h;
  p += static_cast<double>(f.integer(v, "num_position_embeddings", 0, 0, kMaxVisionWidth, kVisionWhere)) * h;
  const double text = static_cast<double>(text_hidden);
  const auto merge = f.integer(v, "spatial_merge_size", 0, 0, 64, kVisionWhere);
  if (merge > 0) {  // Qwen: each merger is s²h -> s²h -> the text width
    const double in = static_cast<double>(merge * merge) * h;
    const double out = static_cast<double>(
        f.integer(v, "out_hidden_size",
                  qwen2 ? f.integer(v, "hidden_size", text_hidden, 0, kMaxVisionWidth, kVisionWhere) : text_hidden, 0,
                  kMaxVisionWidth, kVisionWhere));
    const auto deep = v.find("deepstack_visual_indexes");
    const double mergers = 1 + (deep != v.end() && deep->is_array() ? static_cast<double>(deep->size()) : 0);
    using Profiled = ModelConfig::VisionShape::Profiled;
    shape = {.profiled = family == "qwen2_vl" || family == "qwen2_5_vl" ? Profiled::qwen2_vit : Profiled::none,
             .width = static_cast<std::int64_t>(h),
             .intermediate = static_cast<std::int64_t>(inter),
             .merge = merge,
             .patch = patch,
             .values_per_patch = values,
             .out_width = static_cast<std::int64_t>(out),
             .gated = gated};
    return p + mergers * (in * in + in * out);
  }
  if (const double ratio = f.number(v, "pixel_shuffle_ratio", 0, 0, 1, kVisionWhere); ratio > 0) {  // Llama 4
    const double in = static_cast<double>(f.integer(v, "projector_input_dim", 0, 0, kMaxVisionWidth, kVisionWhere));
    const double out = static_cast<double>(f.integer(v, "projector_output_dim", 0, 0, kMaxVisionWidth, kVisionWhere));
    const double to_text = static_cast<double>(f.integer(v, "vision_output_dim", 0, 0, kMaxVisionWidth, kVisionWhere));
    return p + h / (ratio * ratio) * in + in * out + to_text * text;
  }
  const auto root_merge = f.integer(root, "spatial_merge_size", 0, 0, 64);
  if (root_merge > 0) p += static_cast<double>(root_merge * root_merge) * h * h;  // Mistral 3's patch merger
  // Gemma 3 projects once; LLaVA and Mistral 3 through two linears.
  if (type == "siglip_vision_model" && family == "gemma3") {
    const auto side = f.integer(v, "image_size", 896, 1, 1 << 16, kVisionWhere) / patch;
    shape = {.profiled = ModelConfig::VisionShape::Profiled::gemma3_siglip,
             .width = static_cast<std::int64_t>(h),
             .intermediate = static_cast<std::int64_t>(inter),
             .patch = patch,
             .image_patches = side * side,
             .image_tokens = f.integer(root, "mm_tokens_per_image", 256, 1, 1 << 16),
             .values_per_patch = values,
             .out_width = text_hidden,
             .gated = gated};
  }
  return type == "siglip_vision_model" ? p + h * text : p + h * text + text * text;
}

}  // namespace

RopeScaling read_rope_scaling_fields(const json& text, FieldReader& f, std::int64_t max_position_embeddings) {
  RopeScaling r;
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    auto rs = text.find(key);
    if (rs == text.end() || !rs->is_object()) continue;
    r.fields = &*rs;
    r.where = std::string(key) + ".";
    if (!rs->contains("rope_type") && !rs->contains("type"))
      if (auto full = rs->find("full_attention"); full != rs->end() && full->is_object()) {
        r.fields = &*full;
        r.where += "full_attention.";
      }
    break;
  }
  if (!r.fields) return r;
  r.type = f.text(*r.fields, "rope_type");
  if (r.type.empty()) r.type = f.text(*r.fields, "type");
  if (r.type.empty()) {
    // No type: only rope_theta and the like (the default, unscaled) can be read as no scaling. A
    // factor, or entries per layer type without full_attention, is a layout plan cannot place.
    std::string unknown;
    for (const auto& [name, value] : r.fields->items())
      if (name == "factor" || value.is_object()) unknown += (unknown.empty() ? "" : ", ") + name;
    if (!unknown.empty())
      f.fail(
          fmt::format("{} holds {} but no rope_type (nor a full_attention entry): dcukit plan cannot tell how "
                      "it scales positions; add the rope_type the model was trained with",
                      r.where.substr(0, r.where.size() - 1), unknown));
  }
  r.factor = f.number(*r.fields, "factor", 1.0, 1e-6, kMaxRopeFactor, r.where);
  r.original =
      f.integer(*r.fields, "original_max_position_embeddings", max_position_embeddings, 1, kMaxContext, r.where);
  return r;
}

void read_model_extras(const json& root, const json& text, const RopeScaling& rs, FieldReader& f, ModelConfig& m) {
  if (auto v = root.find("vision_config"); v != root.end() && v->is_object())
    m.vision_params = vision_tower_params(root, *v, f, m.hidden_size, m.vision);
  if (m.learned_positions > 0 || m.max_position_embeddings <= 0) return;  // OPT: a learned table, no RoPE
  // vLLM's get_rope: a table of rotary_dim columns (cos and sin halves) in the model dtype, of
  // max_position_embeddings rows; linear and dynamic scaling multiply them by the factor, YaRN
  // multiplies original_max_position_embeddings.
  double partial = f.number(text, "partial_rotary_factor", 1.0, 1e-3, 1.0);
  const auto positions = f.integer(text, "max_position_embeddings", 0, 0, kMaxContext);
  double rows = static_cast<double>(positions);
  if (rs.fields) {
    partial = f.number(*rs.fields, "partial_rotary_factor", partial, 1e-3, 1.0, rs.where);
    if (rs.type == "linear" || rs.type == "dynamic") rows *= rs.factor;
    if (rs.type == "yarn" || rs.type == "deepseek_yarn") rows = static_cast<double>(rs.original) * rs.factor;
  }
  m.rotary_dim = m.mla ? m.qk_rope_head_dim : static_cast<std::int64_t>(static_cast<double>(m.head_dim) * partial);
  m.rope_rows = static_cast<std::int64_t>(rows);
}

}  // namespace dcukit::plan
