#pragma once
// What a benchmark gets to work with: an opened device with two streams, what is known about
// it, the options, a deadline, the stop token, and RAII holders for buffers and events.
#include <chrono>
#include <functional>
#include <string>

#include "bench/types.h"
#include "core/peaks.h"
#include "device/backend.h"
#include "device/buffer.h"
#include "util/signals.h"

namespace dcukit::bench {

/// A point in time after which a benchmark stops waiting and reports a failure.
class Deadline {
public:
  explicit Deadline(std::chrono::milliseconds budget) : m_end(std::chrono::steady_clock::now() + budget) {}
  /// Time left, at least 1 ms so that a wait still polls once.
  std::chrono::milliseconds remaining() const;
  bool expired() const { return std::chrono::steady_clock::now() >= m_end; }

private:
  std::chrono::steady_clock::time_point m_end;
};

/// Everything a benchmark needs; one per benchmark and device.
struct Context {
  device::Device& device;
  device::BackendKind backend;
  device::Stream stream;         ///< where the work is enqueued
  device::Stream second;         ///< a second stream, for copies in both directions at once
  const DeviceReport& info;      ///< name, memory, link, NUMA (read only)
  const core::DeviceSpec* spec;  ///< published data, or null
  const Options& options;
  Deadline deadline;
  std::function<void(const std::string&)> progress;  ///< a line for the terminal; may be empty
  const util::StopToken* stop = nullptr;             ///< SIGINT/SIGTERM; null: never stops

  /// The peak for key (an override first, then the published data), or 0 with *why set.
  double peak(const std::string& key, std::string* why) const;
  void say(const std::string& line) const {
    if (progress) progress(line);
  }
  /// True once a stop was requested: benchmarks end at the next case or timed run.
  bool stopped() const { return stop && stop->stop_requested(); }
  /// "interrupted by SIGTERM", for the reason of a case a stop cut short.
  std::string stop_reason() const;
  /// True on the CPU backend, whose defaults are smaller.
  bool on_cpu() const { return backend == device::BackendKind::cpu; }
};

using device::allocate;
using device::Buffer;

/// Times `runs` calls of `enqueue` (after `warmup` untimed ones) with a pair of device events
/// around each call on ctx.stream, so that each sample is device time. Stops at the first
/// error, at the deadline and at a stop request.
Result<std::vector<double>> time_with_events(Context& ctx, int warmup, int runs,
                                             const std::function<Status()>& enqueue);

/// As time_with_events, but with the host clock around enqueue + synchronize (for pageable
/// copies and for work on two streams at once, which one stream's events cannot bracket).
Result<std::vector<double>> time_with_host_clock(Context& ctx, int warmup, int runs,
                                                 const std::function<Status()>& enqueue);

/// Fills in time_ms, rate (work per second at the median) and the peak comparison.
void finish(Measurement& m, Context& ctx, const std::string& peak_key, double peak_value_override = 0);

}  // namespace dcukit::bench
