#include "load/prom.h"

#include <charconv>
#include <chrono>
#include <cstdlib>

#include "util/http.h"

namespace dcukit::load {
namespace {

double first_of(const std::map<std::string, double>& m, std::initializer_list<const char*> names, bool* found) {
  for (const char* n : names) {
    const auto it = m.find(n);
    if (it != m.end()) {
      *found = true;
      return it->second;
    }
  }
  *found = false;
  return 0;
}

}  // namespace

std::map<std::string, double> parse_prometheus(std::string_view text) {
  std::map<std::string, double> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const auto name_end = line.find_first_of("{ ");
    if (name_end == std::string_view::npos || name_end == 0) continue;
    const std::string name(line.substr(0, name_end));
    std::size_t value_start = name_end;
    if (line[name_end] == '{') {
      const auto close = line.find('}', name_end);
      if (close == std::string_view::npos) continue;
      value_start = close + 1;
    }
    std::string_view rest = line.substr(value_start);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    const std::string value(rest.substr(0, rest.find(' ')));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str()) continue;
    out[name] += v;
  }
  return out;
}

double kv_cache_usage(const std::map<std::string, double>& sample) {
  bool found = false;
  const double v = first_of(sample, {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"}, &found);
  return found ? v : -1;
}

ServerDelta server_delta(const std::map<std::string, double>& before, const std::map<std::string, double>& after) {
  ServerDelta d;
  struct Field {
    double ServerDelta::*member;
    std::initializer_list<const char*> names;
  };
  const Field fields[] = {
      {&ServerDelta::prompt_tokens, {"vllm:prompt_tokens_total"}},
      {&ServerDelta::generation_tokens, {"vllm:generation_tokens_total"}},
      {&ServerDelta::preemptions, {"vllm:num_preemptions_total", "vllm:num_preemption_total"}},
      {&ServerDelta::prefix_cache_hits, {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}},
      {&ServerDelta::prefix_cache_queries, {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}},
  };
  for (const Field& f : fields) {
    bool a = false, b = false;
    const double v0 = first_of(before, f.names, &a);
    const double v1 = first_of(after, f.names, &b);
    if (!b) {
      d.missing.emplace_back(*f.names.begin());
      continue;
    }
    d.*f.member = v1 - v0;
  }
  d.kv_cache_usage_peak = std::max(kv_cache_usage(before), kv_cache_usage(after));
  if (d.kv_cache_usage_peak < 0) d.missing.emplace_back("vllm:kv_cache_usage_perc");
  return d;
}

MetricsWatcher::MetricsWatcher(std::string url, std::vector<std::string> headers, util::Tls tls)
    : m_url(std::move(url)), m_headers(std::move(headers)), m_tls(std::move(tls)) {}

MetricsWatcher::~MetricsWatcher() {
  m_stop.store(true);
  if (m_poller.joinable()) m_poller.join();
}

Result<std::map<std::string, double>> MetricsWatcher::scrape() const {
  auto r = util::http_request({.url = m_url, .headers = m_headers, .timeout = std::chrono::seconds(5), .tls = m_tls});
  if (!r) return r.error();
  if (r->status != 200) return Error{"GET " + m_url + " answered HTTP " + std::to_string(r->status)};
  return parse_prometheus(r->body);
}

Status MetricsWatcher::start() {
  auto first = scrape();
  if (!first) return Error{first.error().message + "; check --metrics-url"};
  m_before = std::move(*first);
  m_peak_kv.store(kv_cache_usage(m_before));
  m_stop.store(false);
  m_poller = std::thread([this] {
    auto next = std::chrono::steady_clock::now();
    while (!m_stop.load()) {
      next += std::chrono::seconds(1);
      while (!m_stop.load() && std::chrono::steady_clock::now() < next)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (m_stop.load()) break;
      if (auto s = scrape()) {
        const double kv = kv_cache_usage(*s);
        if (kv > m_peak_kv.load()) m_peak_kv.store(kv);
      }
    }
  });
  return {};
}

Result<ServerDelta> MetricsWatcher::stop() {
  m_stop.store(true);
  if (m_poller.joinable()) m_poller.join();
  auto last = scrape();
  if (!last) return last.error();
  ServerDelta d = server_delta(m_before, *last);
  d.kv_cache_usage_peak = std::max(d.kv_cache_usage_peak, m_peak_kv.load());
  return d;
}

}  // namespace dcukit::load
