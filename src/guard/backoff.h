#pragma once
// When to restart: an exponential back-off with jitter (each failed start in a row doubles the
// delay, up to a cap; a random part spreads restarts of many guarded services apart), and the
// crash-loop rule (more than N restarts within a window and guard gives up). Pure logic with
// time passed in, so that tests need no clock.
#include <chrono>
#include <deque>
#include <functional>

#include "guard/types.h"

namespace dcukit::guard {

class Backoff {
public:
  /// random01: a source of numbers in [0, 1) (tests pass a fixed one).
  explicit Backoff(std::function<double()> random01 = {});
  /// The next delay: initial × 2^(failures in a row), capped at `cap`, then "equal jitter":
  /// half of it fixed and half random, so that it never falls below half the nominal delay.
  std::chrono::milliseconds next(std::chrono::milliseconds initial, std::chrono::milliseconds cap);
  /// The service became ready: the next failure starts from `initial` again.
  void reset() { m_in_a_row = 0; }
  int in_a_row() const { return m_in_a_row; }

private:
  std::function<double()> m_random;
  int m_in_a_row = 0;
};

/// Restarts within a sliding window.
class CrashWindow {
public:
  /// Records a restart at `now`; true when the restarts within `window` now number more than
  /// `max_restarts` (a crash loop).
  bool record(Clock::time_point now, std::chrono::milliseconds window, int max_restarts);
  /// Restarts recorded within `window` of `now`.
  int count(Clock::time_point now, std::chrono::milliseconds window);
  void clear() { m_times.clear(); }

private:
  std::deque<Clock::time_point> m_times;
};

}  // namespace dcukit::guard
