#pragma once
// Reading OpenAI-compatible response bodies: one streamed chunk (an SSE event's data) or a whole
// non-streamed response. Both APIs: completions (choices[].text) and chat (choices[].delta or
// .message with content and reasoning_content / reasoning). Whatever a server sends, the result
// is a value or an Error of that one reply: a usage count of the wrong type (null, "5", 1e30,
// -1) is an Error, never an exception or a wrapped-around number.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::load {

/// The largest token count a reply may state (a billion): beyond it the reply is refused.
inline constexpr long long kMaxTokenCount = 1'000'000'000;

/// What one chunk or response carries that a benchmark needs.
struct ChunkInfo {
  bool done = false;                ///< the `[DONE]` sentinel
  std::size_t content_bytes = 0;    ///< bytes of text / content
  std::size_t reasoning_bytes = 0;  ///< bytes of reasoning_content / reasoning
  bool has_usage = false;                 ///< a usage object with at least one count
  std::optional<int> prompt_tokens;      ///< absent or null: the server did not say
  std::optional<int> completion_tokens;  ///< absent or null: the server did not say
  bool finished = false;   ///< a choice carried a finish_reason
  bool has_error = false;  ///< an `error` object in place of choices
  std::string error_message;
};

/// Parses one SSE data payload. Malformed JSON, or a usage count that is not a whole number in
/// [0, kMaxTokenCount], is an Error (a protocol failure). With `text`, the chunk's content and
/// reasoning text are appended to it (for --save-detailed).
Result<ChunkInfo> parse_chunk(std::string_view data, std::string* text = nullptr);

/// Parses a whole non-streamed response body the same way.
Result<ChunkInfo> parse_response(std::string_view body, std::string* text = nullptr);

/// A short message from an error body (`{"error": {"message": ...}}`, `{"message": ...}` or
/// `{"detail": ...}`), else the body's first 200 bytes.
std::string error_text(std::string_view body);

}  // namespace dcukit::load
