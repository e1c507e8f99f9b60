#include "load/body.h"

#include "util/json_text.h"

namespace dcukit::load {

std::string build_body(const Prompt& prompt, const BodyOptions& options) {
  nlohmann::json body;
  body["model"] = options.model;
  if (options.api == Api::chat) {
    body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", prompt.text}}});
  } else if (!prompt.token_ids.empty()) {
    body["prompt"] = prompt.token_ids;
  } else {
    body["prompt"] = prompt.text;
  }
  body["temperature"] = options.temperature;
  if (prompt.max_tokens > 0) {
    body[options.api == Api::chat ? "max_completion_tokens" : "max_tokens"] = prompt.max_tokens;
    if (options.api == Api::chat) body["max_tokens"] = prompt.max_tokens;  // older servers
    if (options.min_tokens) body["min_tokens"] = prompt.max_tokens;
  }
  if (options.ignore_eos) body["ignore_eos"] = true;
  body["stream"] = options.stream;
  if (options.stream && options.include_usage) {
    body["stream_options"] = {{"include_usage", true}};
    if (options.continuous_usage) body["stream_options"]["continuous_usage_stats"] = true;
  }
  if (options.extra_body.is_object()) body.update(options.extra_body);
  return util::json_text(body);
}

}  // namespace dcukit::load
