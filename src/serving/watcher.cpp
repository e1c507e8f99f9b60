#include "serving/watcher.h"

#include <fmt/format.h>

#include "serving/prometheus.h"

namespace dcukit::serving {

MetricsWatcher::MetricsWatcher(std::string url, std::vector<std::string> headers, util::Tls tls,
                               std::vector<std::string> peak_gauges, std::chrono::milliseconds interval)
    : m_url(std::move(url)),
      m_headers(std::move(headers)),
      m_tls(std::move(tls)),
      m_gauges(std::move(peak_gauges)),
      m_interval(interval) {}

MetricsWatcher::~MetricsWatcher() {
  m_stop.store(true);
  if (m_poller.joinable()) m_poller.join();
}

Result<std::map<std::string, double>> MetricsWatcher::scrape() const {
  auto r = util::http_request({.url = m_url, .headers = m_headers, .timeout = std::chrono::seconds(5), .tls = m_tls});
  if (!r) return r.error();
  if (r->status != 200) return Error{fmt::format("GET {} answered HTTP {}", m_url, r->status)};
  return sum_by_name(parse_text(r->body));
}

void MetricsWatcher::note(const std::map<std::string, double>& sample) {
  std::lock_guard lock(m_mutex);
  ++m_result.scrapes;
  m_result.after = sample;
  for (const auto& g : m_gauges) {
    const auto it = sample.find(g);
    if (it == sample.end()) continue;
    auto [peak, fresh] = m_result.peaks.emplace(g, it->second);
    if (!fresh && it->second > peak->second) peak->second = it->second;
  }
}

Status MetricsWatcher::start() {
  auto first = scrape();
  if (!first) return first.error();
  {
    std::lock_guard lock(m_mutex);
    m_result = Scrapes{};
    m_result.before = *first;
  }
  note(*first);
  m_stop.store(false);
  m_poller = std::thread([this] {
    auto next = std::chrono::steady_clock::now();
    while (!m_stop.load()) {
      next += m_interval;
      while (!m_stop.load() && std::chrono::steady_clock::now() < next)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      if (m_stop.load()) break;
      auto s = scrape();
      if (s) {
        note(*s);
      } else {
        std::lock_guard lock(m_mutex);
        m_result.last_error = s.error().message;
      }
    }
  });
  return {};
}

Scrapes MetricsWatcher::stop() {
  m_stop.store(true);
  if (m_poller.joinable()) m_poller.join();
  auto last = scrape();
  if (last) {
    note(*last);
    std::lock_guard lock(m_mutex);
    m_result.last_error.clear();
  } else {
    std::lock_guard lock(m_mutex);
    m_result.last_error = last.error().message;
  }
  std::lock_guard lock(m_mutex);
  return m_result;
}

}  // namespace dcukit::serving
