#pragma once
// What a benchmark gets to work with: the backend with its device selected, what is known
// about the device, the options, a deadline, and RAII holders for buffers and events.
#include <chrono>
#include <functional>
#include <string>

#include "bench/options.h"
#include "bench/result.h"
#include "core/peaks.h"
#include "device/backend.h"

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

/// Everything a benchmark needs; one per device.
struct Context {
  device::Backend& backend;
  const DeviceReport& device;          ///< info, memory, link, NUMA (read only)
  const core::DeviceSpec* spec;        ///< published data, or null
  const Options& options;
  Deadline deadline;
  std::function<void(const std::string&)> progress;  ///< a line for the terminal; may be empty

  /// The peak for key (an override first, then the published data), or 0 with *why set.
  double peak(const std::string& key, std::string* why) const;
  void say(const std::string& line) const {
    if (progress) progress(line);
  }
};

/// A buffer that frees itself (RAII over Backend::allocate).
class Buffer {
public:
  Buffer() = default;
  Buffer(device::Backend* b, device::MemKind kind, void* p, std::size_t bytes) : m_b(b), m_kind(kind), m_p(p), m_bytes(bytes) {}
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept;
  ~Buffer() { reset(); }
  void reset() noexcept;
  void* get() const { return m_p; }
  std::size_t size() const { return m_bytes; }
  template <class T> T* as() const { return static_cast<T*>(m_p); }

private:
  device::Backend* m_b = nullptr;
  device::MemKind m_kind = device::MemKind::device;
  void* m_p = nullptr;
  std::size_t m_bytes = 0;
};

/// Allocates or returns the backend's error naming the size.
Result<Buffer> allocate(device::Backend& b, device::MemKind kind, std::size_t bytes);

/// Times `runs` calls of `enqueue` (after `warmup` untimed ones) with a pair of device events
/// around each call, so that each sample is device time. Stops at the first error.
Result<std::vector<double>> time_with_events(Context& ctx, int warmup, int runs, const std::function<Status()>& enqueue);

/// As time_with_events, but with the host clock around enqueue + synchronize (for pageable
/// copies and for work on two streams at once, which one stream's events cannot bracket).
Result<std::vector<double>> time_with_host_clock(Context& ctx, int warmup, int runs, const std::function<Status()>& enqueue);

/// Fills in time_ms, rate (work per second at the median) and the peak comparison.
void finish(Measurement& m, Context& ctx, const std::string& peak_key, double peak_value_override = 0);

} // namespace dcukit::bench
