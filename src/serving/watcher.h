#pragma once
// Watches a server's /metrics over a stretch of work: a scrape before, one every interval
// during it (for the peaks of gauges such as KV-cache usage) and one after. What the figures
// mean is the caller's business (load turns them into per-level deltas).
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serving/probe.h"
#include "util/result.h"

namespace dcukit::serving {

/// The scrapes of one watch, each metric summed over its label sets.
struct Scrapes {
  std::map<std::string, double> before, after;
  std::map<std::string, double> peaks;  ///< the highest value seen of each watched gauge that appeared
  int scrapes = 0;                      ///< how many scrapes succeeded
  std::string last_error;               ///< the last failed scrape's error, "" when none failed
};

class MetricsWatcher {
public:
  /// url: the full /metrics URL; peak_gauges: names whose highest value is tracked.
  MetricsWatcher(std::string url, std::vector<std::string> headers, util::Tls tls, std::vector<std::string> peak_gauges,
                 std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~MetricsWatcher();
  MetricsWatcher(const MetricsWatcher&) = delete;
  MetricsWatcher& operator=(const MetricsWatcher&) = delete;

  /// Takes the first scrape and starts polling; fails when the URL does not answer.
  Status start();
  /// Stops polling and takes the last scrape. When that scrape fails (the server died), the
  /// result still holds what the earlier scrapes saw, with `after` taken from the last good one
  /// and last_error set: the caller decides, nothing measured is thrown away.
  Scrapes stop();

private:
  Result<std::map<std::string, double>> scrape() const;
  void note(const std::map<std::string, double>& sample);

  std::string m_url;
  std::vector<std::string> m_headers;
  util::Tls m_tls;
  std::vector<std::string> m_gauges;
  std::chrono::milliseconds m_interval;
  std::mutex m_mutex;  ///< guards m_result
  Scrapes m_result;
  std::atomic<bool> m_stop{false};
  std::thread m_poller;
};

}  // namespace dcukit::serving
