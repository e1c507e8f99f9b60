#pragma once
// Which kind each decoder layer is (config.json's layer_types, or the patterns Qwen3-Next, Gemma and
// Qwen2 write) and the state fields of the linear-attention layers (Gated DeltaNet, Mamba-2). The
// hybrids plan does not model (Jamba's Mamba-1, Nemotron-H's pattern) are refused, never read as
// attention.
#include <nlohmann/json.hpp>
#include <string_view>

#include "plan/fields.h"
#include "plan/model_config.h"
#include "util/result.h"

namespace dcukit::plan {

/// m.layers, m.linear_kind and m.sliding_window from the text fields `j` (m.num_layers read first);
/// `f` fails with the reason on a layer kind or layout plan does not model.
void read_layer_kinds(const nlohmann::json& j, FieldReader& f, ModelConfig& m);

/// The state fields of m's linear-attention layers, where it has any (read_layer_kinds first); the
/// error, prefixed with `origin`, names what is missing.
Status read_linear_state(const nlohmann::json& j, FieldReader& f, ModelConfig& m, std::string_view origin);

}  // namespace dcukit::plan
