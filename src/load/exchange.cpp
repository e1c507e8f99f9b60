#include "load/exchange.h"

#include <algorithm>
#include <cstring>

#include "load/chunk.h"

namespace dcukit::load {
namespace {

constexpr std::size_t kMaxErrorBody = 64 * 1024;
constexpr std::size_t kMaxBody = std::size_t{256} << 20;

}  // namespace

Exchange::Exchange() : m_easy(curl_easy_init()), m_sse([this](const SseEvent& e) { on_event(e); }) {}

void Exchange::reset(std::size_t index, std::string body, bool stream, bool keep_text, Clock::time_point t0) {
  // libcurl 7.88 counts connection retries per easy handle and never clears the count, so a
  // handle reused against a server that closes after each reply ends up failing requests that
  // never reached it ("Connection died, tried 5 times"). A reset handle starts from zero.
  curl_easy_reset(m_easy.get());
  m_body = std::move(body);
  m_raw.clear();
  m_errbuf[0] = 0;
  m_sse = SseReader([this](const SseEvent& e) { on_event(e); });
  m_rec = RequestRecord{};
  m_rec.index = index;
  m_rec.streamed = stream;
  m_t0 = t0;
  m_stream = stream;
  m_keep_text = keep_text;
  m_status_checked = m_status_ok = m_done = m_finished = m_rearmed = false;
  m_read_off = 0;
  m_sent_marked = false;
}

bool Exchange::rearm_after_stale_connection(CURLcode code) {
  if (m_rearmed || m_status_checked || !m_raw.empty()) return false;  // once, and only before any reply
  if (code != CURLE_SEND_ERROR && code != CURLE_GOT_NOTHING && code != CURLE_RECV_ERROR) return false;
  long connects = -1;  // new connections this transfer made: 0 when it ran on a reused one
  if (curl_easy_getinfo(m_easy.get(), CURLINFO_NUM_CONNECTS, &connects) != CURLE_OK || connects != 0) return false;
  m_rearmed = true;
  m_read_off = 0;
  m_errbuf[0] = 0;
  curl_easy_setopt(m_easy.get(), CURLOPT_FRESH_CONNECT, 1L);
  return true;
}

std::size_t Exchange::on_read(char* buffer, std::size_t n) {
  if (!m_sent_marked) {
    m_rec.sent_ms = now_ms();
    m_sent_marked = true;
  }
  const std::size_t k = std::min(n, m_body.size() - m_read_off);
  std::memcpy(buffer, m_body.data() + m_read_off, k);
  m_read_off += k;
  return k;
}

bool Exchange::on_seek(std::size_t offset) {
  if (offset > m_body.size()) return false;
  m_read_off = offset;
  return true;
}

double Exchange::now_ms() const {
  return std::chrono::duration<double, std::milli>(Clock::now() - m_t0).count();
}

void Exchange::fail(ErrorClass c, std::string message) {
  if (m_rec.error != ErrorClass::none) return;  // the first failure is the cause
  m_rec.error = c;
  m_rec.error_message = std::move(message);
}

// Once a reply: its status, and whether a streamed request got a stream at all. A server that
// ignores "stream": true answers one JSON body; that is read whole, as --no-stream would be.
void Exchange::on_first_bytes() {
  long status = 0;
  curl_easy_getinfo(m_easy.get(), CURLINFO_RESPONSE_CODE, &status);
  m_rec.http_status = status;
  m_status_ok = status == 200;
  m_status_checked = true;
  if (m_stream && m_status_ok) {
    const char* type = nullptr;
    curl_easy_getinfo(m_easy.get(), CURLINFO_CONTENT_TYPE, &type);
    if (type && std::strstr(type, "application/json")) {
      m_stream = false;
      m_rec.streamed = false;
    }
  }
}

std::size_t Exchange::on_bytes(const char* data, std::size_t n) {
  if (!m_status_checked) on_first_bytes();
  if (!m_status_ok || !m_stream) {
    const std::size_t cap = m_status_ok ? kMaxBody : kMaxErrorBody;
    if (m_raw.size() < cap) m_raw.append(data, std::min(n, cap - m_raw.size()));
    if (m_status_ok && m_raw.size() >= cap) {
      fail(ErrorClass::protocol, "response body larger than 256 MiB");
      return 0;
    }
    return n;
  }
  m_event_ms = now_ms();
  if (const Status s = m_sse.feed(std::string_view(data, n)); !s) {
    fail(ErrorClass::protocol, s.message());
    return 0;  // abort: curl reports a write error, the record keeps the cause
  }
  return m_rec.error == ErrorClass::protocol ? 0 : n;
}

void Exchange::on_event(const SseEvent& event) {
  if (m_rec.error != ErrorClass::none) return;
  if (m_done) return;  // anything after [DONE] is ignored
  auto parsed = parse_chunk(event.data, m_keep_text ? &m_rec.text : nullptr);
  if (!parsed) {
    fail(ErrorClass::protocol, "bad stream chunk: " + parsed.error().message);
    return;
  }
  const ChunkInfo& c = *parsed;
  if (c.done) {
    m_done = true;
    return;
  }
  if (c.has_error) {
    fail(ErrorClass::stream_error, "error in stream: " + c.error_message);
    return;
  }
  const std::size_t bytes = c.content_bytes + c.reasoning_bytes;
  if (bytes > 0) {
    if (m_rec.first_token_ms < 0) m_rec.first_token_ms = m_event_ms;
    m_rec.last_token_ms = m_event_ms;
    m_rec.chunk_ms.push_back(m_event_ms);
    m_rec.chunk_bytes.push_back(static_cast<std::uint32_t>(bytes));
    if (c.reasoning_bytes > 0) ++m_rec.reasoning_chunks;
    // With continuous usage, the growth of completion_tokens since the last usage (the record's
    // output_tokens so far) is this chunk's exact token count; counting stops at the first
    // content chunk without usage (complete() then drops the counts).
    if (c.completion_tokens && m_rec.chunk_tokens.size() + 1 == m_rec.chunk_ms.size())
      m_rec.chunk_tokens.push_back(static_cast<std::uint32_t>(std::max(0, *c.completion_tokens - m_rec.output_tokens)));
  }
  take_usage(c);
  if (c.finished) m_finished = true;
}

// A whole body: --no-stream, or a server that answered a stream request with plain JSON.
void Exchange::complete_body(double end) {
  auto parsed = parse_response(m_raw, m_keep_text ? &m_rec.text : nullptr);
  if (!parsed) return fail(ErrorClass::protocol, "bad response: " + parsed.error().message);
  if (parsed->has_error) return fail(ErrorClass::stream_error, "error in response: " + parsed->error_message);
  const std::size_t bytes = parsed->content_bytes + parsed->reasoning_bytes;
  if (bytes == 0) return;  // no content: complete() says so
  m_rec.first_token_ms = m_rec.last_token_ms = end;
  m_rec.chunk_ms.push_back(end);
  m_rec.chunk_bytes.push_back(static_cast<std::uint32_t>(bytes));
  take_usage(*parsed);
}

// The counts a usage object gave: the output's makes the record's tokens the server's; a count
// the server left out (absent or null) keeps what the client knows.
void Exchange::take_usage(const ChunkInfo& c) {
  if (c.prompt_tokens) m_rec.input_tokens = *c.prompt_tokens;
  if (c.completion_tokens) {
    m_rec.usage_reported = true;
    m_rec.output_tokens = *c.completion_tokens;
  }
}

void Exchange::complete(CURLcode code, const char* curl_message) {
  const double end = now_ms();
  m_rec.done_ms = end;
  if (m_rec.http_status == 0) curl_easy_getinfo(m_easy.get(), CURLINFO_RESPONSE_CODE, &m_rec.http_status);
  if (m_rec.error == ErrorClass::none) {
    const std::string why = curl_message && *curl_message ? curl_message : curl_easy_strerror(code);
    switch (code) {
      case CURLE_OK:
        break;
      case CURLE_OPERATION_TIMEDOUT:
        fail(ErrorClass::timeout, "timed out: " + why);
        break;
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_SSL_CONNECT_ERROR:         // the TLS handshake failed
      case CURLE_PEER_FAILED_VERIFICATION:  // the certificate or its host name was not trusted
      case CURLE_SSL_CACERT_BADFILE:        // --cacert could not be read
        fail(ErrorClass::connect, why);
        break;
      case CURLE_PARTIAL_FILE:
      case CURLE_RECV_ERROR:
      case CURLE_SEND_ERROR:
      case CURLE_GOT_NOTHING:
        fail(ErrorClass::dropped, "connection dropped: " + why);
        break;
      default:
        fail(ErrorClass::protocol, why);
        break;
    }
  }
  if (m_rec.error == ErrorClass::none && m_rec.http_status != 200) {
    fail(ErrorClass::http_status, "HTTP " + std::to_string(m_rec.http_status) + ": " + error_text(m_raw));
  }
  if (m_rec.error != ErrorClass::none) return;
  if (!m_stream) {
    complete_body(end);
  } else {
    m_sse.finish();
    if (m_rec.error != ErrorClass::none) return;
    if (!m_done && !m_finished) return fail(ErrorClass::dropped, "stream ended before [DONE]");
  }
  if (m_rec.error != ErrorClass::none) return;
  if (m_rec.first_token_ms < 0) return fail(ErrorClass::protocol, "the response had no content");
  if (m_rec.chunk_tokens.size() != m_rec.chunk_ms.size()) m_rec.chunk_tokens.clear();
  if (!m_rec.usage_reported) m_rec.output_tokens = static_cast<int>(m_rec.chunk_ms.size());
}

}  // namespace dcukit::load
