#include "guard/events.h"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include "util/files.h"
#include "util/json_text.h"
#include "util/redact.h"

namespace dcukit::guard {
namespace {

/// Now in UTC with milliseconds: "2026-07-14T08:12:38.696Z".
std::string now_utc() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", buf, static_cast<int>(ms));
}

}  // namespace

EventLog::~EventLog() {
  if (m_owned && m_out) std::fclose(m_out);
}

Status EventLog::open(const std::string& path) {
  std::lock_guard lock(m_mutex);
  if (path.empty() || path == "-") {
    m_out = stdout;
    return {};
  }
  auto f = util::open_append(path, util::Privacy::secret);
  if (!f) {
    m_out = stdout;
    return Error{fmt::format("--events {}: {}", path, f.error().message)};
  }
  m_out = *f;
  m_owned = true;
  return {};
}

void EventLog::emit(EventKind kind, State state, const nlohmann::json& fields) {
  if (kind == EventKind::probe_failed && m_detail == EventDetail::quiet) return;
  if (kind == EventKind::probe_passed && m_detail != EventDetail::verbose) return;
  nlohmann::ordered_json line;
  line["time"] = now_utc();
  line["event"] = to_string(kind);
  line["state"] = to_string(state);
  if (fields.is_object())
    for (const auto& [k, v] : fields.items()) line[k] = v;
  util::redact_strings(line);
  const std::string text = util::json_text(line) + "\n";
  std::lock_guard lock(m_mutex);
  if (!m_out) m_out = stdout;
  std::fwrite(text.data(), 1, text.size(), m_out);
  std::fflush(m_out);
  ++m_count;
}

}  // namespace dcukit::guard
