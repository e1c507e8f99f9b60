#pragma once
// Reading a server's Prometheus text exposition (vLLM's /metrics) and watching it over a level:
// the change in its counters and the peak of its KV-cache gauge.
#include <atomic>
#include <map>
#include <string>
#include <string_view>
#include <thread>

#include "util/result.h"
#include "load/result.h"
#include "util/http.h"

namespace dcukit::load {

/// Each metric name's value summed over its label sets (so per-model or per-engine series add
/// up). Comment lines and malformed lines are skipped.
std::map<std::string, double> parse_prometheus(std::string_view text);

/// The counters' change between two scrapes, under vLLM's names (v1 first, v0 fallbacks).
ServerDelta server_delta(const std::map<std::string, double>& before, const std::map<std::string, double>& after);

/// The KV-cache usage fraction in one scrape, or -1 when absent.
double kv_cache_usage(const std::map<std::string, double>& sample);

/// Scrapes /metrics before a level, every interval during it (for the peak gauge), and after.
class MetricsWatcher {
public:
  /// url: the full /metrics URL. headers: sent with each scrape.
  MetricsWatcher(std::string url, std::vector<std::string> headers, util::Tls tls);
  ~MetricsWatcher();
  MetricsWatcher(const MetricsWatcher&) = delete;
  MetricsWatcher& operator=(const MetricsWatcher&) = delete;

  /// Takes the first scrape and starts polling; fails when the URL does not answer.
  Status start();
  /// Stops polling, takes the last scrape and returns the change.
  Result<ServerDelta> stop();

private:
  Result<std::map<std::string, double>> scrape() const;

  std::string m_url;
  std::vector<std::string> m_headers;
  util::Tls m_tls;
  std::map<std::string, double> m_before;
  std::atomic<bool> m_stop{false};
  std::atomic<double> m_peak_kv{-1};
  std::thread m_poller;
};

}  // namespace dcukit::load
