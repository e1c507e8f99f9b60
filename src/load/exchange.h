#pragma once
// One HTTP request to the server and its reply while in flight: the curl handle, the SSE reader
// on its byte stream, and the record it fills. The engine owns a pool of these and reuses them
// (and so their connections); each reuse starts from a reset handle.
#include <chrono>
#include <string>

#include "load/chunk.h"
#include "load/sse.h"
#include "load/records.h"
#include "util/http.h"

namespace dcukit::load {

/// The steady clock the whole load engine reads.
using Clock = std::chrono::steady_clock;

/// A request's state between being handed to curl and its completion.
class Exchange {
public:
  Exchange();
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  /// Prepares for a new request: resets the curl handle (every option back to its default,
  /// libcurl's per-handle retry count included, so that a server closing each connection after
  /// its reply never fails a later request), clears the record and the reader, sets the body.
  /// keep_text keeps the generated text in the record (--save-detailed).
  void reset(std::size_t index, std::string body, bool stream, bool keep_text, Clock::time_point t0);
  /// The curl easy handle (owned).
  CURL* easy() const { return m_easy.get(); }
  /// The request body curl reads from (must outlive the exchange).
  const std::string& body() const { return m_body; }
  /// Called by curl's write callback with the next bytes of the response.
  std::size_t on_bytes(const char* data, std::size_t n);
  /// Called by curl's read callback for the next bytes of the request body; the first call
  /// marks the record's actual send time (the request reaching the wire, not the queue).
  std::size_t on_read(char* buffer, std::size_t n);
  /// Called by curl's seek callback to rewind the body (a retry on a fresh connection).
  bool on_seek(std::size_t offset);
  /// For a request that died on a reused connection before any byte of its reply came back (the
  /// server closed that connection after its previous reply, a race no client can avoid): true
  /// once, with the handle set to send it again on a fresh connection. The record keeps its
  /// first send time, so the delay counts in its latency.
  bool rearm_after_stale_connection(CURLcode code);
  /// Called when curl reports the exchange done; classifies the outcome into the record.
  void complete(CURLcode code, const char* curl_message);
  /// The record (valid to move out after complete()).
  RequestRecord& record() { return m_rec; }
  /// The buffer curl writes its error text to (CURLOPT_ERRORBUFFER).
  char* error_buffer() { return m_errbuf; }

private:
  void on_first_bytes();
  void on_event(const SseEvent& event);
  void fail(ErrorClass c, std::string message);
  void complete_body(double end);
  void take_usage(const ChunkInfo& c);
  double now_ms() const;

  util::CurlEasy m_easy;
  char m_errbuf[CURL_ERROR_SIZE] = {};
  std::string m_body;
  std::string m_raw;  // a non-streamed body, or an error body
  SseReader m_sse;
  RequestRecord m_rec;
  Clock::time_point m_t0;
  double m_event_ms = 0;  // arrival of the bytes being parsed
  bool m_stream = true;   // the reply is read as an event stream
  bool m_keep_text = false;
  std::size_t m_read_off = 0;
  bool m_sent_marked = false;
  bool m_status_checked = false;
  bool m_status_ok = false;
  bool m_done = false;
  bool m_finished = false;
  bool m_rearmed = false;  // sent again once after a stale connection
};

}  // namespace dcukit::load
