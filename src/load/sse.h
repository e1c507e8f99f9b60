#pragma once
// An incremental reader of Server-Sent Events (the WHATWG "text/event-stream" format) as
// OpenAI-compatible servers stream them. Bytes arrive in arbitrary pieces: an event may be split
// across reads, several may share one read, a UTF-8 sequence may be cut in two. The reader keeps
// raw bytes until a line ends, so none of that matters to what it reports.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::load {

/// One dispatched event: its type ("message" unless an `event:` field set one) and its data
/// (the `data:` lines joined with '\n').
struct SseEvent {
  std::string_view type;
  std::string_view data;
};

/// Feeds on bytes, calls back once per complete event. Lines end in LF, CRLF or CR, a CRLF split
/// across two reads included; `:` lines are comments; "data:x" and "data: x" are the same field.
class SseReader {
public:
  /// Called for each event; the views live only for the call.
  using EventHandler = std::function<void(const SseEvent&)>;

  /// max_line bounds one line and one event's data in bytes (a guard against a server that
  /// never ends a line); lines of several MiB are fine under the default.
  explicit SseReader(EventHandler on_event, std::size_t max_line = std::size_t{64} << 20);

  /// Consumes the next bytes of the stream. Fails, and ignores all later input, once a line or an
  /// event exceeds max_line.
  Status feed(std::string_view bytes);

  /// The stream ended: an event whose blank line never came is dispatched (lenient, as
  /// browsers are not, because some servers omit the final blank line). Returns whether bytes of
  /// an unterminated line were pending.
  bool finish();

  /// How many comment lines were seen (servers send them as keep-alives).
  std::size_t comments() const { return m_comments; }
  /// Whether the reader has failed (a line over max_line).
  bool failed() const { return m_failed; }

private:
  void process_line(std::string_view line);
  void dispatch();
  std::size_t consume(std::string_view bytes);

  EventHandler m_on_event;
  std::size_t m_max_line;
  std::string m_line;  // a partial line carried over from the previous feed
  std::string m_data;  // data of the event being assembled
  std::string m_type;  // its `event:` type, if any
  bool m_has_data = false;
  bool m_skip_lf = false;  // the last byte was CR: a leading LF belongs to it
  bool m_failed = false;
  std::size_t m_comments = 0;
};

}  // namespace dcukit::load
