#include "serving/probe.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <thread>

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
  const auto j = nlohmann::json::parse(r->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{where + " did not answer a JSON object"};
  const auto data = j.find("data");
  if (data == j.end() || !data->is_array()) return Error{where + " answered without a \"data\" array"};
  std::vector<std::string> ids;
  for (const auto& m : *data) {
    const auto id = m.is_object() ? m.find("id") : m.end();
    if (!m.is_object() || id == m.end() || !id->is_string())
      return Error{fmt::format("{} listed a model whose \"id\" is not a string: {}", where, m.dump().substr(0, 120))};
    ids.push_back(id->get<std::string>());
  }
  return ids;
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
