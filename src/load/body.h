#pragma once
// Building the JSON body of one completions or chat request.
#include <nlohmann/json.hpp>
#include <string>

#include "load/records.h"

namespace dcukit::load {

/// What every request body of a run shares.
struct BodyOptions {
  Api api = Api::completions;
  std::string model;
  bool stream = true;
  bool include_usage = true;      ///< stream_options: {include_usage: true}
  bool continuous_usage = false;  ///< also continuous_usage_stats (vLLM): usage in every chunk
  bool ignore_eos = false;        ///< vLLM's ignore_eos, so that max_tokens is reached
  bool min_tokens = false;        ///< also send min_tokens = max_tokens (vLLM, SGLang)
  double temperature = 0.0;
  nlohmann::json extra_body = nlohmann::json::object();  ///< merged last; the user wins
};

/// The body for one prompt. Token-id prompts need Api::completions (the caller checks).
std::string build_body(const Prompt& prompt, const BodyOptions& options);

}  // namespace dcukit::load
