#include "util/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>

#include "util/text.h"

namespace dcukit::util {
namespace {

std::string seconds_text(double s) {
  const long long t = std::llround(s);
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{}m{:02}s", t / 60, t % 60);
  return fmt::format("{}h{:02}m", t / 3600, (t % 3600) / 60);
}

/// A terminal that takes "erase to the end of the line"; a dumb one is padded with blanks.
bool takes_escapes() {
  const char* term = std::getenv("TERM");
  return std::getenv("NO_COLOR") == nullptr && term != nullptr && std::string_view(term) != "dumb";
}

}  // namespace

std::optional<ProgressMode> parse_progress_mode(std::string_view text, int fd) {
  if (text == "auto") return ::isatty(fd) != 0 ? ProgressMode::tty : ProgressMode::plain;
  if (text == "tty") return ProgressMode::tty;
  if (text == "plain") return ProgressMode::plain;
  if (text == "none") return ProgressMode::none;
  return std::nullopt;
}

std::string eta_text(double fraction, double elapsed_s) {
  if (!(fraction > 0.01) || !(elapsed_s >= 1) || fraction >= 1) return "";
  return "ETA " + seconds_text(elapsed_s * (1 - fraction) / fraction);
}

Progress::Progress(ProgressMode mode, std::FILE* out, Clock::duration plain_every)
    : m_mode(mode), m_out(out), m_plain_every(plain_every) {}

Progress::~Progress() {
  close();
}

void Progress::write_locked(std::string_view text, bool redraw) {
  const std::string safe = terminal_safe(text);
  if (redraw) {
    static const bool escapes = takes_escapes();
    if (escapes)
      fmt::print(m_out, "\r\033[K{}", safe);
    else
      fmt::print(m_out, "\r{:<79}", safe);
    m_open = true;
  } else {
    fmt::print(m_out, "{}\n", safe);
  }
  std::fflush(m_out);
}

void Progress::status(std::string_view step, std::string_view text, bool last) {
  if (m_mode == ProgressMode::none) return;
  std::lock_guard<std::mutex> lock(m_mu);
  const std::string line = std::string(step) + (text.empty() ? "" : ": ") + std::string(text);
  if (m_mode == ProgressMode::tty) {
    write_locked(line, true);
    if (last) close_locked();
    m_step = last ? "" : std::string(step);
    return;
  }
  const auto now = Clock::now();
  if (step != m_step || last || now - m_last_plain >= m_plain_every) {
    write_locked(line, false);
    m_last_plain = now;
  }
  m_step = last ? "" : std::string(step);
}

void Progress::line(std::string_view text) {
  if (m_mode == ProgressMode::none) return;
  std::lock_guard<std::mutex> lock(m_mu);
  close_locked();
  write_locked(text, false);
}

void Progress::close() {
  std::lock_guard<std::mutex> lock(m_mu);
  close_locked();
}

void Progress::close_locked() {
  if (!m_open) return;
  fmt::print(m_out, "\n");
  std::fflush(m_out);
  m_open = false;
}

Ticker::Ticker(Progress& progress, std::string step, std::chrono::milliseconds deadline)
    : m_progress(progress), m_step(std::move(step)), m_deadline(deadline), m_start(Progress::Clock::now()) {
  if (!m_progress.shown()) return;
  m_thread = std::thread([this] {
    std::unique_lock<std::mutex> lock(m_mu);
    // A step done within 2 s says nothing; a longer one says so every second.
    if (m_cv.wait_for(lock, std::chrono::seconds(2), [this] { return m_done; })) return;
    do {
      const double s = std::chrono::duration<double>(Progress::Clock::now() - m_start).count();
      const std::string limit =
          m_deadline.count() > 0 ? fmt::format(" (at most {})", seconds_text(m_deadline.count() / 1000.0)) : "";
      m_progress.status(m_step, seconds_text(s) + limit);
      m_said = true;
    } while (!m_cv.wait_for(lock, std::chrono::seconds(1), [this] { return m_done; }));
  });
}

Ticker::~Ticker() {
  if (!m_thread.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(m_mu);
    m_done = true;
  }
  m_cv.notify_all();
  m_thread.join();
  if (!m_said) return;
  const double s = std::chrono::duration<double>(Progress::Clock::now() - m_start).count();
  m_progress.status(m_step, "done in " + seconds_text(s), true);
}

}  // namespace dcukit::util
