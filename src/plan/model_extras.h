#pragma once
// What a model puts on a GPU beside its text decoder's weights: a multimodal wrapper's vision tower
// (counted from vision_config) and the RoPE cos/sin table vLLM builds at load time.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "plan/fields.h"
#include "plan/model_config.h"

namespace dcukit::plan {

/// The RoPE scaling of the text fields, read from `rope_scaling` or transformers 5's
/// `rope_parameters` (Gemma 3's per layer type: its full-attention entry). One reader for both the
/// context limit and the RoPE table, so that a config holding both keys is scaled once.
struct RopeScaling {
  const nlohmann::json* fields = nullptr;  ///< the object read; nullptr when there is none
  std::string where;                       ///< "rope_scaling." or "rope_parameters[.full_attention].", for errors
  std::string type;                        ///< rope_type, or the older type
  double factor = 1.0;
  std::int64_t original = 0;  ///< original_max_position_embeddings, else max_position_embeddings
};
RopeScaling read_rope_scaling_fields(const nlohmann::json& text, FieldReader& f, std::int64_t max_position_embeddings);

/// Sets m.vision_params from root's vision_config (0 when there is none) and m.rope_rows and
/// m.rotary_dim from the text fields `text` and their RoPE scaling `rs` (read once, by
/// read_rope_scaling_fields, for the context limit too). Reads after the attention fields.
void read_model_extras(const nlohmann::json& root, const nlohmann::json& text, const RopeScaling& rs, FieldReader& f,
                       ModelConfig& m);

}  // namespace dcukit::plan
