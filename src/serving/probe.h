#pragma once
// Asking an OpenAI-compatible inference server whether it is up: /health, /v1/models, and
// waiting until it is ready. Every call has a deadline and a waiting loop wakes on a stop
// request; a reply of any shape becomes a value or an Error, never a crash. load, guard,
// patrol and doctor all probe through here.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "util/http.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::serving {

/// Where a server is and how to speak to it.
struct Endpoint {
  std::string base_url;              ///< scheme://host:port, no trailing slash
  std::vector<std::string> headers;  ///< sent with every probe (e.g. the API key)
  util::Tls tls;
};

/// A GET of base_url + path: the HTTP status and body, or an Error for a transport failure
/// (refused, timed out, TLS) naming the URL.
Result<util::HttpResponse> get(const Endpoint& server, const std::string& path, std::chrono::milliseconds timeout);

/// The model ids /v1/models lists, in order. An Error names what was wrong with the reply
/// (not JSON, no "data" array, an id that is not a string).
Result<std::vector<std::string>> list_models(const Endpoint& server, std::chrono::milliseconds timeout);

/// The model ids in a /v1/models reply body, in order; `where` names the reply in errors. For a
/// caller that tells "the server is down" (a failed get) from "its reply is wrong" (this).
Result<std::vector<std::string>> parse_models(const std::string& body, const std::string& where);

/// The context length of `model` as the server states it, in tokens: vLLM's and SGLang's
/// /v1/models (max_model_len), llama.cpp's /props (default_generation_settings.n_ctx, per
/// slot), TGI's /info (max_total_tokens). nullopt when none of them says (never a guess).
std::optional<int> context_length(const Endpoint& server, const std::string& model, std::chrono::milliseconds timeout);

/// Polls /health until it answers 200, then /v1/models, every 250 ms until `budget` has passed
/// or `stop` is requested. The error says which step failed last, and why.
Status wait_ready(const Endpoint& server, std::chrono::milliseconds budget, const util::StopToken* stop = nullptr);

}  // namespace dcukit::serving
