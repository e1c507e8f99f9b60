#pragma once
// Counting a prompt's tokens as the server will, through whatever the server offers: the
// /tokenize of vLLM and SGLang ({"model", "prompt" | "messages"} -> {"count", "tokens",
// "max_model_len"}), of llama.cpp ({"content", "add_special"} -> {"tokens"}), of TGI
// ({"inputs"} -> [{"id", ...}]), or, where there is none, the usage of a one-token request.
// The dialect is found on the first count; an empty answer to a non-empty text means "wrong
// dialect", never a count of 0.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/body.h"
#include "serving/probe.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::load {

/// How a count is made.
enum class TokenizerKind {
  vllm,      ///< POST /tokenize, vLLM's and SGLang's form
  llamacpp,  ///< POST /tokenize, llama.cpp's form
  tgi,       ///< POST /tokenize, TGI's form
  usage,     ///< usage.prompt_tokens of a request for one token
};

/// "vLLM/SGLang /tokenize", "llama.cpp /tokenize", "TGI /tokenize", "usage of one-token requests".
std::string_view to_string(TokenizerKind k);

/// Where the server is and how its generation requests look.
struct TokenizerConfig {
  serving::Endpoint server;  ///< base URL, headers (API key), TLS
  std::string generate_url;  ///< the completions or chat URL, for counting through usage
  BodyOptions body;          ///< api and model, and the user's extra body, for those requests
  std::chrono::milliseconds timeout{10000};
  const util::StopToken* stop = nullptr;  ///< a stop ends the search between calls
};

/// Counts tokens through the first way that works, and keeps using it.
class TokenCounter {
public:
  explicit TokenCounter(TokenizerConfig config);

  /// The tokens `text` takes as a prompt, as the server counts it (with its chat template on
  /// the chat API where the way allows, and its start token). The error names every way that
  /// was tried and why it failed.
  Result<int> count(const std::string& text);
  /// The way found (nullopt before a count succeeded).
  std::optional<TokenizerKind> kind() const { return m_kind; }
  /// Whether counts are of the text alone (so that an answer's length can be counted): true
  /// except for usage on the chat API, whose counts include the chat template.
  bool counts_plain_text() const;
  /// The model's context length, if the tokenizer or the server said it.
  std::optional<int> max_model_len();

private:
  Result<int> count_as(TokenizerKind kind, const std::string& text);
  Result<int> count_by_usage(const std::string& text);
  Result<util::HttpResponse> post(const std::string& url, std::string body);

  TokenizerConfig m_config;
  std::optional<TokenizerKind> m_kind;
  std::optional<int> m_max_model_len;
  bool m_context_probed = false;
  bool m_unreachable = false;  // a call failed below HTTP (refused, timed out): the server is down
};

}  // namespace dcukit::load
