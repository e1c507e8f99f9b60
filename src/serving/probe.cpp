#include "serving/probe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::serving {

Result<util::HttpResponse> get(const Endpoint& server, const std::string& path, std::chrono::milliseconds timeout) {
  return util::http_request(
      {.url = server.base_url + path, .headers = server.headers, .timeout = timeout, .tls = server.tls});
}

Result<std::vector<std::string>> list_models(const Endpoint& server, std::chrono::milliseconds timeout) {
  auto r = get(server, "/v1/models", timeout);
  if (!r) return r.error();
  const std::string where = server.base_url + "/v1/models";
  if (r->status != 200) return Error{fmt::format("{} answered HTTP {}", where, r->status)};
  return parse_models(r->body, where);
}

Result<std::vector<std::string>> parse_models(const std::string& body, const std::string& where) {
  const auto j = util::parse_json(body);
  if (j.is_discarded() || !j.is_object()) return Error{where + " did not answer a JSON object"};
  const auto data = j.find("data");
  if (data == j.end() || !data->is_array()) return Error{where + " answered without a \"data\" array"};
  std::vector<std::string> ids;
  for (const auto& m : *data) {
    const auto id = m.is_object() ? m.find("id") : m.end();
    if (!m.is_object() || id == m.end() || !id->is_string())
      return Error{
          fmt::format("{} listed a model whose \"id\" is not a string: {}", where, util::json_text(m).substr(0, 120))};
    ids.push_back(id->get<std::string>());
  }
  return ids;
}

namespace {

/// A positive whole number below 2^31 at j[key], or nullopt.
std::optional<int> positive_int(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  const auto v = it->get<long long>();
  if (v <= 0 || v > 0x7fffffff) return std::nullopt;
  return static_cast<int>(v);
}

nlohmann::json get_json(const Endpoint& server, const std::string& path, std::chrono::milliseconds timeout) {
  auto r = get(server, path, timeout);
  if (!r || r->status != 200) return nullptr;
  auto j = util::parse_json(r->body);
  return j.is_discarded() ? nlohmann::json(nullptr) : j;
}

}  // namespace

std::optional<int> context_length(const Endpoint& server, const std::string& model, std::chrono::milliseconds timeout) {
  const auto models = get_json(server, "/v1/models", timeout);
  if (models.is_object() && models.contains("data") && models["data"].is_array()) {
    for (const auto& m : models["data"]) {
      if (!m.is_object() || !m.contains("id") || m["id"] != model) continue;
      if (auto n = positive_int(m, "max_model_len")) return n;
    }
  }
  const auto props = get_json(server, "/props", timeout);
  if (props.is_object() && props.contains("default_generation_settings"))
    if (auto n = positive_int(props["default_generation_settings"], "n_ctx")) return n;
  if (auto n = positive_int(get_json(server, "/info", timeout), "max_total_tokens")) return n;
  return std::nullopt;
}

Status wait_ready(const Endpoint& server, std::chrono::milliseconds budget, const util::StopToken* stop) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  std::string last = "no answer";
  for (const char* path : {"/health", "/v1/models"}) {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      auto r = get(server, path, std::clamp(left, std::chrono::milliseconds(100), std::chrono::milliseconds(5000)));
      if (r && r->status == 200) break;
      last = r ? fmt::format("HTTP {}", r->status) : r.error().message;
      if (stop && stop->stop_requested())
        return Error{fmt::format("stopped while waiting for {}{} (last: {})", server.base_url, path, last)};
      if (std::chrono::steady_clock::now() >= deadline)
        return Error{fmt::format("{}{} was not ready after {:.3g} s (last: {})", server.base_url, path,
                                 std::chrono::duration<double>(budget).count(), last)};
      if (stop)
        (void)stop->wait_for(std::chrono::milliseconds(250));
      else
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }
  return {};
}

}  // namespace dcukit::serving
