#pragma once
// Progress on stderr for any step that can take more than a moment, the same in every command:
// on a terminal one line redrawn in place; elsewhere (a CI log, `| tee`) a plain line at the
// start of a step and then every few seconds, so that a log shows the run is alive; none with
// -q or --progress none. A step whose total is known shows how far it is and an ETA.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace dcukit::util {

enum class ProgressMode { none, tty, plain };

/// "auto" (a terminal on stderr: tty, else plain), "tty", "plain" or "none"; nullopt otherwise.
std::optional<ProgressMode> parse_progress_mode(std::string_view text, int fd);

/// "ETA 1m05s" for a step `fraction` done after `elapsed_s`; "" while too little is known.
std::string eta_text(double fraction, double elapsed_s);

/// Where the progress lines go. Thread-safe: a measuring thread and a ticker may both write.
class Progress {
public:
  using Clock = std::chrono::steady_clock;
  explicit Progress(ProgressMode mode, std::FILE* out = stderr,
                    Clock::duration plain_every = std::chrono::seconds(10));
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  ProgressMode mode() const { return m_mode; }
  bool shown() const { return m_mode != ProgressMode::none; }

  /// The state of the step `step` ("[1/3] rate=4"). On a terminal: redrawn. Plain: printed when
  /// the step is new, every plain_every after, and with `last` (the step's end).
  void status(std::string_view step, std::string_view text, bool last = false);
  /// A line said once (a finished benchmark, a notice): it ends a redrawn line first.
  void line(std::string_view text);
  /// Ends a redrawn line, so that what is printed next starts at the margin.
  void close();

private:
  void close_locked();
  void write_locked(std::string_view text, bool redraw);

  ProgressMode m_mode;
  std::FILE* m_out;
  Clock::duration m_plain_every;
  std::mutex m_mu;
  std::string m_step;
  Clock::time_point m_last_plain{};
  bool m_open = false;
};

/// A step with no progress of its own (a Python import, a smoke test): while it lives, a thread
/// says "STEP: 12 s (at most 60 s)" every second from its 2nd second on, and "done in" at its end.
class Ticker {
public:
  Ticker(Progress& progress, std::string step, std::chrono::milliseconds deadline = {});
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

private:
  Progress& m_progress;
  std::string m_step;
  std::chrono::milliseconds m_deadline;
  Progress::Clock::time_point m_start;
  std::mutex m_mu;
  std::condition_variable m_cv;
  bool m_done = false;
  bool m_said = false;  ///< a status was shown: the end is shown too
  std::thread m_thread;
};

}  // namespace dcukit::util
