#pragma once
// The test server's view of the OpenAI protocol: which misbehaviours a request asks for, and
// the bytes of each streamed event. Kept apart from the event loop in fake_server.cpp.
#include <set>
#include <string>
#include <string_view>

namespace fake {

/// Misbehaviours, named as they appear in --mode and the X-Fake-Mode header (comma-separated):
/// split, coalesce, utf8, crlf, comments, nospace, longline, error, roleonly, reasoning, multi,
/// nousage, drop, hang, nodone, badjson, status=NNN; skew (the first chunk's text is 40 bytes
/// longer, so that its byte share no longer matches its token share); usage_null, usage_string,
/// usage_huge (usage with "prompt_tokens": null, "prompt_tokens": "5", "completion_tokens":
/// 1e30); json_reply (one JSON body, not a stream, to a streamed request); ignore_continuous
/// (no usage in the chunks whatever stream_options asks).
struct Modes {
  std::set<std::string> flags;
  int status = 200;
  bool has(std::string_view f) const { return flags.count(std::string(f)) > 0; }
};

/// Adds the comma-separated list in text to modes.
void parse_modes(std::string_view text, Modes& modes);

/// What one generation request asked for.
struct GenRequest {
  bool chat = false;
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage = false;  ///< stream_options.continuous_usage_stats (vLLM): usage in every chunk
  int prompt_tokens = 0;
  int max_tokens = 16;
  std::string model;
};

/// Parses a completions or chat body; false if it is not JSON.
bool parse_gen_request(std::string_view body, bool chat, GenRequest& out);

/// The fake tokenizer: whitespace-separated words. Token-id arrays count their elements.
int count_tokens(std::string_view text);

/// The SSE bytes (one event, blank line included) for a chunk carrying text.
/// A content chunk; usage_tokens >= 0 adds a usage object with that many completion tokens so far.
std::string text_event(const GenRequest& r, const Modes& m, std::string_view text, bool reasoning, bool last,
                       int usage_tokens = -1);
/// A chat role-only chunk, or an empty-text chunk.
std::string empty_event(const GenRequest& r, const Modes& m, bool role_only);
/// The usage chunk.
std::string usage_event(const GenRequest& r, const Modes& m, int completion_tokens);
/// An in-stream error after a 200.
std::string error_event(const Modes& m);
/// `data: [DONE]`.
std::string done_event(const Modes& m);
/// A whole non-streamed response.
std::string full_response(const GenRequest& r, const Modes& m, int completion_tokens, std::string_view text);
/// The usage object for completion_tokens so far, as the modes want it (possibly malformed).
std::string usage_json(const GenRequest& r, const Modes& m, int completion_tokens);

}  // namespace fake
