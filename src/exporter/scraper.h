#pragma once
// Reads the devices for one scrape, within a deadline. The reading runs on a worker thread; a
// scrape that waits longer than the deadline answers without device figures and counts a collect
// error, so that a call stuck in the driver never hangs Prometheus. While a reading is stuck, the
// next scrapes wait for that same reading instead of starting another (threads do not pile up).
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "exporter/metrics.h"
#include "telemetry/types.h"
#include "util/result.h"

namespace dcukit::exporter {

/// One reading of the devices. It may block (a driver call, a FIFO); it runs on a worker thread
/// and must own what it uses.
using ReadFn = std::function<Result<telemetry::Snapshot>()>;

class Scraper {
public:
  /// `read` is called at most once at a time; `deadline` bounds each scrape's wait; `source`
  /// names where the figures come from in the metrics ("live" or a path).
  Scraper(ReadFn read, std::chrono::milliseconds deadline, std::string source);

  /// Waits for a reading (a fresh one, or the one still running) up to the deadline.
  /// Thread-safe: concurrent scrapes share one reading.
  Scrape scrape();

  /// Scrapes answered so far.
  std::uint64_t scrapes() const { return m_scrapes.load(); }
  /// Collects that failed or missed the deadline so far.
  std::uint64_t collect_errors() const { return m_errors.load(); }

private:
  struct Job;
  std::shared_ptr<Job> start_or_join();

  ReadFn m_read;
  std::chrono::milliseconds m_deadline;
  std::string m_source;
  std::mutex m_mutex;              ///< guards m_running
  std::shared_ptr<Job> m_running;  ///< the reading not finished yet, if any
  std::atomic<std::uint64_t> m_scrapes{0}, m_errors{0};
};

}  // namespace dcukit::exporter
