#pragma once
// guard's event stream: one JSON object a line ({"time": ..., "event": "ready", "state":
// "ready", ...}) on standard output or appended to --events FILE, flushed at once so that a
// journal, a log shipper or a test reading the file sees each event as it happens.
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "guard/types.h"
#include "util/result.h"

namespace dcukit::guard {

class EventLog {
public:
  EventLog() = default;
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// Writes to `path` (appending), or to standard output when empty; the error names the path.
  Status open(const std::string& path);
  /// Which events are written (EventDetail); normal unless set.
  void set_detail(EventDetail detail) { m_detail = detail; }
  /// Writes one event line: time, event, state, then `fields`' members. Thread-safe.
  void emit(EventKind kind, State state, const nlohmann::json& fields = nlohmann::json::object());
  /// How many events were written (for tests and the soak).
  std::uint64_t count() const { return m_count; }

private:
  std::mutex m_mutex;
  std::FILE* m_out = nullptr;
  bool m_owned = false;
  std::uint64_t m_count = 0;
  EventDetail m_detail = EventDetail::normal;
};

}  // namespace dcukit::guard
