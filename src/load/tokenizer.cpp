#include "load/tokenizer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "load/chunk.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::load {
namespace {

using nlohmann::json;

constexpr std::pair<TokenizerKind, std::string_view> kTokenizerNames[] = {{TokenizerKind::vllm, "vLLM/SGLang /tokenize"},
                                                                 {TokenizerKind::llamacpp, "llama.cpp /tokenize"},
                                                                 {TokenizerKind::tgi, "TGI /tokenize"},
                                                                 {TokenizerKind::usage, "usage of one-token requests"}};

/// A whole number in [0, kMaxTokenCount] at j[key], or nullopt.
std::optional<int> count_at(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  const auto v = it->get<long long>();
  if (v < 0 || v > kMaxTokenCount) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

std::string_view to_string(TokenizerKind k) {
  for (const auto& [kind, name] : kTokenizerNames)
    if (kind == k) return name;
  return "?";
}

TokenCounter::TokenCounter(TokenizerConfig config) : m_config(std::move(config)) {}

bool TokenCounter::counts_plain_text() const {
  return !(m_kind == TokenizerKind::usage && m_config.body.api == Api::chat);
}

std::optional<int> TokenCounter::max_model_len() {
  if (!m_max_model_len && !m_context_probed) {
    m_context_probed = true;
    m_max_model_len = serving::context_length(m_config.server, m_config.body.model, m_config.timeout);
  }
  return m_max_model_len;
}

Result<int> TokenCounter::count(const std::string& text) {
  if (text.empty()) return Error{"cannot count the tokens of an empty text"};
  if (m_config.stop && m_config.stop->stop_requested()) return Error{"stopped while counting tokens"};
  if (m_kind) return count_as(*m_kind, text);
  const bool chat = m_config.body.api == Api::chat;
  // llama.cpp's and TGI's /tokenize know no chat template: on the chat API only vLLM's form
  // (which applies it) and usage count what the server will.
  std::vector<TokenizerKind> ways{TokenizerKind::vllm};
  if (!chat) ways.insert(ways.end(), {TokenizerKind::llamacpp, TokenizerKind::tgi});
  ways.push_back(TokenizerKind::usage);
  std::string tried;
  for (TokenizerKind k : ways) {
    auto n = count_as(k, text);
    if (n) {
      m_kind = k;
      return n;
    }
    tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", to_string(k), n.error().message);
    if (m_unreachable) return Error{n.error().message};  // the server is down: no other way will work
  }
  return Error{"no way to count tokens worked (" + tried + ")"};
}

Result<util::HttpResponse> TokenCounter::post(const std::string& url, std::string body) {
  util::HttpRequest req{.url = url,
                        .method = "POST",
                        .body = std::move(body),
                        .headers = m_config.server.headers,
                        .timeout = m_config.timeout,
                        .tls = m_config.server.tls};
  req.headers.push_back("Content-Type: application/json");
  auto r = util::http_request(req);
  if (!r) m_unreachable = true;  // no HTTP answer at all: the server is down or unreachable
  return r;
}

Result<int> TokenCounter::count_as(TokenizerKind kind, const std::string& text) {
  if (kind == TokenizerKind::usage) return count_by_usage(text);
  json body;
  if (kind == TokenizerKind::vllm) {
    body["model"] = m_config.body.model;
    if (m_config.body.api == Api::chat)
      body["messages"] = json::array({{{"role", "user"}, {"content", text}}});
    else
      body["prompt"] = text;
  } else if (kind == TokenizerKind::llamacpp) {
    body["content"] = text;
    body["add_special"] = true;  // its start token, as the server's usage counts it
  } else {
    body["inputs"] = text;
  }
  auto r = post(m_config.server.base_url + "/tokenize", util::json_text(body));
  if (!r) return r.error();
  if (r->status != 200) return Error{fmt::format("HTTP {}", r->status)};
  const auto j = util::parse_json(r->body);
  if (j.is_discarded()) return Error{"the answer was not JSON"};
  std::optional<int> n;
  if (kind == TokenizerKind::tgi) {
    if (j.is_array()) n = static_cast<int>(j.size());
  } else {
    n = count_at(j, "count");
    if (!n && j.is_object() && j.contains("tokens") && j["tokens"].is_array()) n = static_cast<int>(j["tokens"].size());
    if (kind == TokenizerKind::vllm)
      if (auto len = count_at(j, "max_model_len"); len && *len > 0) m_max_model_len = len;
  }
  if (!n) return Error{"the answer had no token count"};
  // A server speaking another dialect answers an empty list (llama.cpp to vLLM's form): a wrong
  // way to ask, not a count of 0.
  if (*n == 0) return Error{"it counted 0 tokens in a non-empty text (another server's dialect)"};
  return *n;
}

Result<int> TokenCounter::count_by_usage(const std::string& text) {
  BodyOptions o = m_config.body;
  o.stream = false;
  o.include_usage = false;
  o.continuous_usage = false;
  o.ignore_eos = false;
  o.min_tokens = false;
  Prompt p;
  p.text = text;
  p.max_tokens = 1;
  auto r = post(m_config.generate_url, build_body(p, o));
  if (!r) return r.error();
  if (r->status != 200) return Error{fmt::format("HTTP {}: {}", r->status, error_text(r->body))};
  auto parsed = parse_response(r->body);
  if (!parsed) return parsed.error();
  if (!parsed->prompt_tokens || *parsed->prompt_tokens == 0) return Error{"the reply had no usage.prompt_tokens"};
  return *parsed->prompt_tokens;
}

}  // namespace dcukit::load
