#include "serving/canary.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace dcukit::serving {

Result<CanaryResult> send_canary(const Endpoint& server, const CanaryRequest& request) {
  const nlohmann::json body = {{"model", request.model},
                               {"prompt", request.prompt},
                               {"max_tokens", request.max_tokens},
                               {"temperature", 0},
                               {"stream", false}};
  util::HttpRequest http{.url = server.base_url + "/v1/completions",
                         .method = "POST",
                         .body = util::json_text(body),
                         .headers = server.headers,
                         .timeout = request.timeout,
                         .tls = server.tls};
  http.headers.push_back("Content-Type: application/json");
  const auto start = std::chrono::steady_clock::now();
  auto r = util::http_request(http);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r) return Error{fmt::format("canary failed after {:.3g} s: {}", took, r.error().message)};
  if (r->status != 200)
    return Error{fmt::format("canary answered HTTP {} after {:.3g} s: {}", r->status, took, r->body.substr(0, 200))};
  const auto j = util::parse_json(r->body);
  const auto choices = j.is_object() ? j.find("choices") : j.end();
  if (!j.is_object() || choices == j.end() || !choices->is_array() || choices->empty())
    return Error{fmt::format("canary reply after {:.3g} s has no \"choices\": {}", took, r->body.substr(0, 200))};
  CanaryResult out{.latency_seconds = took};
  const auto& first = choices->front();
  if (first.is_object() && first.contains("text") && first["text"].is_string()) out.text = first["text"];
  return out;
}

Result<std::string> served_model(const Endpoint& server, const std::string& wanted, std::chrono::milliseconds timeout) {
  auto models = list_models(server, timeout);
  if (!models) return models.error();
  if (models->empty()) return Error{server.base_url + "/v1/models lists no model yet"};
  if (wanted.empty()) return models->front();
  for (const auto& m : *models)
    if (m == wanted) return m;
  std::string listed;
  for (const auto& m : *models) listed += (listed.empty() ? "" : ", ") + m;
  return Error{fmt::format("{}/v1/models does not list {} (it lists {})", server.base_url, wanted, listed)};
}

}  // namespace dcukit::serving
