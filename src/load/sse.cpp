#include "load/sse.h"

#include <cstring>

namespace dcukit::load {

SseReader::SseReader(EventHandler on_event, std::size_t max_line)
    : m_on_event(std::move(on_event)), m_max_line(max_line) {}

// Processes complete lines in bytes and returns how many bytes were consumed; the rest is a
// partial line.
std::size_t SseReader::consume(std::string_view bytes) {
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const char* start = bytes.data() + pos;
    const std::size_t left = bytes.size() - pos;
    const void* lf = std::memchr(start, '\n', left);
    const void* cr =
        std::memchr(start, '\r', lf ? static_cast<std::size_t>(static_cast<const char*>(lf) - start) : left);
    const char* end = cr ? static_cast<const char*>(cr) : static_cast<const char*>(lf);
    if (!end) break;
    process_line(std::string_view(start, static_cast<std::size_t>(end - start)));
    if (m_failed) return bytes.size();
    pos = static_cast<std::size_t>(end - bytes.data()) + 1;
    if (*end == '\r') {
      if (pos < bytes.size()) {
        if (bytes[pos] == '\n') ++pos;
      } else {
        m_skip_lf = true;
      }
    }
  }
  return pos;
}

Status SseReader::feed(std::string_view bytes) {
  if (m_failed) return Error{"SSE stream already failed"};
  if (m_skip_lf && !bytes.empty()) {
    m_skip_lf = false;
    if (bytes.front() == '\n') bytes.remove_prefix(1);
  }
  if (!m_line.empty()) {
    // Finish the carried-over line first: find its end in the new bytes only.
    const std::size_t end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      m_line.append(bytes);
      if (m_line.size() > m_max_line) {
        m_failed = true;
        return Error{"SSE line longer than " + std::to_string(m_max_line) + " bytes"};
      }
      return {};
    }
    m_line.append(bytes.substr(0, end));
    std::string line = std::move(m_line);
    m_line.clear();
    // Re-run the terminator through consume so CR/CRLF handling stays in one place.
    std::string_view rest = bytes.substr(end);
    process_line(line);
    if (m_failed) return Error{"SSE event longer than " + std::to_string(m_max_line) + " bytes"};
    if (rest.front() == '\r') {
      rest.remove_prefix(1);
      if (rest.empty()) {
        m_skip_lf = true;
        return {};
      }
      if (rest.front() == '\n') rest.remove_prefix(1);
    } else {
      rest.remove_prefix(1);
    }
    bytes = rest;
  }
  const std::size_t used = consume(bytes);
  if (m_failed) return Error{"SSE event longer than " + std::to_string(m_max_line) + " bytes"};
  m_line.assign(bytes.substr(used));
  if (m_line.size() > m_max_line) {
    m_failed = true;
    return Error{"SSE line longer than " + std::to_string(m_max_line) + " bytes"};
  }
  return {};
}

void SseReader::process_line(std::string_view line) {
  if (line.empty()) {
    dispatch();
    return;
  }
  if (line.front() == ':') {
    ++m_comments;
    return;
  }
  const auto colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (m_has_data) m_data.push_back('\n');
    m_data.append(value);
    m_has_data = true;
    if (m_data.size() > m_max_line) m_failed = true;
  } else if (field == "event") {
    m_type.assign(value);
  }
  // "id" and "retry" do not matter to a benchmark; unknown fields are ignored by the spec.
}

void SseReader::dispatch() {
  if (m_has_data) {
    const SseEvent event{m_type.empty() ? std::string_view("message") : std::string_view(m_type), m_data};
    m_on_event(event);
  }
  m_data.clear();
  m_type.clear();
  m_has_data = false;
}

bool SseReader::finish() {
  const bool partial = !m_line.empty();
  if (partial && !m_failed) {
    std::string line = std::move(m_line);
    m_line.clear();
    process_line(line);
  }
  if (!m_failed) dispatch();
  return partial;
}

}  // namespace dcukit::load
