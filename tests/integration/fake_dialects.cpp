#include "fake_dialects.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fake_protocol.h"

namespace fake {
namespace {

using nlohmann::json;

std::string counter(const std::string& name, const std::string& labels, double v, const char* type = "counter") {
  return "# TYPE " + name + " " + type + "\n" + name + labels + " " + std::to_string(v) + "\n";
}

}  // namespace

Reply tokenize_reply(std::string_view dialect, std::string_view body, int template_tokens) {
  const auto j = json::parse(body.begin(), body.end(), nullptr, false);
  if (dialect == "none" || j.is_discarded() || !j.is_object()) return {404, "application/json", "{\"error\":\"no\"}"};
  if (dialect == "llamacpp") {
    // llama.cpp reads "content" only: another form gets an empty list, as from the real server.
    const int n = j.contains("content") && j["content"].is_string() ? count_tokens(j["content"].get<std::string>()) : 0;
    json tokens = json::array();
    for (int i = 0; i < n; ++i) tokens.push_back(100 + i);
    return {200, "application/json", json{{"tokens", tokens}}.dump()};
  }
  if (dialect == "tgi") {
    if (!j.contains("inputs") || !j["inputs"].is_string())
      return {422, "application/json", "{\"error\":\"missing field `inputs`\"}"};
    json out = json::array();
    const int n = count_tokens(j["inputs"].get<std::string>());
    for (int i = 0; i < n; ++i) out.push_back({{"id", 100 + i}, {"text", "w"}, {"start", i}, {"stop", i + 1}});
    return {200, "application/json", out.dump()};
  }
  // vLLM and SGLang: {"model", "prompt"} or {"model", "messages"}.
  int n = 0;
  if (j.contains("prompt") && j["prompt"].is_string()) {
    n = count_tokens(j["prompt"].get<std::string>());
  } else if (j.contains("messages") && j["messages"].is_array()) {
    n = template_tokens;
    for (const auto& m : j["messages"])
      if (m.is_object() && m.contains("content") && m["content"].is_string())
        n += count_tokens(m["content"].get<std::string>());
  } else {
    return {400, "application/json", "{\"object\":\"error\",\"message\":\"prompt or messages required\"}"};
  }
  json tokens = json::array();
  for (int i = 0; i < n; ++i) tokens.push_back(1);
  return {200, "application/json", json{{"count", n}, {"max_model_len", 32768}, {"tokens", tokens}}.dump()};
}

std::string metrics_text(std::string_view dialect, const Totals& t, const std::string& model) {
  const std::string l = "{model_name=\"" + model + "\"}";
  const double kv = std::min(1.0, t.active / 256.0);
  std::string s;
  if (dialect == "vllm") {
    s += "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n";
    s += counter("vllm:prompt_tokens_total", l, static_cast<double>(t.prompt));
    s += counter("vllm:generation_tokens_total", l, static_cast<double>(t.generation));
    s += counter("vllm:num_preemptions_total", l, static_cast<double>(t.requests / 10));
    s += counter("vllm:prefix_cache_queries_total", l, static_cast<double>(t.prompt));
    s += counter("vllm:prefix_cache_hits_total", l, static_cast<double>(t.prompt / 2));
    s += counter("vllm:num_requests_running", l, t.active, "gauge");
    s += counter("vllm:kv_cache_usage_perc", l, kv, "gauge");
  } else if (dialect == "sglang") {
    s += counter("sglang:prompt_tokens_total", l, static_cast<double>(t.prompt));
    s += counter("sglang:generation_tokens_total", l, static_cast<double>(t.generation));
    s += counter("sglang:num_retracted_requests_total", l, static_cast<double>(t.requests / 10));
    s += counter("sglang:cached_tokens_total", l, static_cast<double>(t.prompt / 2));
    s += counter("sglang:num_running_reqs", l, t.active, "gauge");
    s += counter("sglang:token_usage", l, kv, "gauge");
  } else if (dialect == "llamacpp") {
    // llama.cpp's names carry no labels and expose no KV-cache use, preemptions or prefix cache.
    s += counter("llamacpp:prompt_tokens_total", "", static_cast<double>(t.prompt));
    s += counter("llamacpp:tokens_predicted_total", "", static_cast<double>(t.generation));
    s += counter("llamacpp:requests_processing", "", t.active, "gauge");
  } else if (dialect == "tgi") {
    s += "# TYPE tgi_request_input_length histogram\n";
    s += "tgi_request_input_length_sum " + std::to_string(t.prompt) + "\n";
    s += "tgi_request_input_length_count " + std::to_string(t.requests) + "\n";
    s += "# TYPE tgi_request_generated_tokens histogram\n";
    s += "tgi_request_generated_tokens_sum " + std::to_string(t.generation) + "\n";
    s += "tgi_request_generated_tokens_count " + std::to_string(t.requests) + "\n";
    s += counter("tgi_batch_current_size", "", t.active, "gauge");
  }
  // The fake's own counts, in every dialect: tests wait on them instead of sleeping.
  s += "fake_requests_total " + std::to_string(t.requests) + "\nfake_streams_active " + std::to_string(t.active) +
       "\nfake_health_checks_total " + std::to_string(t.health) + "\n";
  s += "# TYPE fake_emit_lateness_ms summary\nfake_emit_lateness_ms_sum " + std::to_string(t.late_sum_ms) + "\n";
  s += "fake_emit_lateness_ms_count " + std::to_string(t.late_n) + "\nfake_emit_lateness_ms_max " +
       std::to_string(t.late_max_ms) + "\n";
  return s;
}

}  // namespace fake
