#pragma once
// How the fake server speaks as each real server does where they differ: /tokenize (vLLM and
// SGLang, llama.cpp, TGI, or none) and /metrics (vllm:*, sglang:*, llamacpp:*, tgi_*, or none).
#include <string>
#include <string_view>

namespace fake {

/// A reply: status, content type, body.
struct Reply {
  int status = 200;
  std::string type = "application/json";
  std::string body;
};

/// The /tokenize reply of `dialect` ("vllm", "llamacpp", "tgi", "none") to `body`, counting
/// whitespace-separated words; chat messages add template_tokens (vLLM's form applies the
/// template). A request in another server's form gets what that server would answer: llama.cpp
/// an empty token list, vLLM and TGI HTTP 4xx.
Reply tokenize_reply(std::string_view dialect, std::string_view body, int template_tokens);

/// What the server has served, for /metrics.
struct Totals {
  long long prompt = 0, generation = 0, requests = 0, health = 0;
  int active = 0;
  double late_sum_ms = 0, late_max_ms = 0;
  long long late_n = 0;
};

/// The /metrics text in `dialect` ("vllm", "sglang", "llamacpp", "tgi"; "none": only the fake's
/// own lateness figures), labelled with the model's name.
std::string metrics_text(std::string_view dialect, const Totals& t, const std::string& model);

}  // namespace fake
