#pragma once
// What a model puts on a GPU beside its text decoder's weights: a multimodal wrapper's vision tower
// (counted from vision_config) and the RoPE cos/sin table vLLM builds at load time.
#include <nlohmann/json.hpp>

#include "plan/fields.h"
#include "plan/model_config.h"

namespace dcukit::plan {

/// Sets m.vision_params from root's vision_config (0 when there is none) and m.rope_rows and
/// m.rotary_dim from the text fields `text`. Reads after the attention and RoPE scaling fields.
void read_model_extras(const nlohmann::json& root, const nlohmann::json& text, FieldReader& f, ModelConfig& m);

}  // namespace dcukit::plan
