#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "load/metrics.h"

namespace dcukit::load {

std::vector<int> tokens_per_chunk(const RequestRecord& r) {
  const std::size_t chunks = r.chunk_ms.size();
  std::vector<int> k(chunks, 1);
  if (chunks == 0) return k;
  if (r.chunk_tokens.size() == chunks) {  // the server counted them (continuous usage)
    for (std::size_t i = 0; i < chunks; ++i) k[i] = std::max<int>(1, static_cast<int>(r.chunk_tokens[i]));
    return k;
  }
  const int n = r.output_tokens;
  if (n <= static_cast<int>(chunks)) return k;  // one token a chunk (or fewer reported)
  // One token each, then the rest by bytes, largest remainder first.
  const int extra = n - static_cast<int>(chunks);
  const double total = std::accumulate(r.chunk_bytes.begin(), r.chunk_bytes.end(), 0.0);
  std::vector<std::pair<double, std::size_t>> rem;
  int given = 0;
  for (std::size_t i = 0; i < chunks; ++i) {
    const double share = total > 0 ? extra * (r.chunk_bytes[i] / total) : static_cast<double>(extra) / chunks;
    const int whole = static_cast<int>(std::floor(share));
    k[i] += whole;
    given += whole;
    rem.emplace_back(share - whole, i);
  }
  std::sort(rem.begin(), rem.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t j = 0; given < extra && j < rem.size(); ++j, ++given) ++k[rem[j].second];
  return k;
}

namespace {

MetricStats stats(const std::vector<double>& samples, const std::vector<double>& percentiles) {
  MetricStats m;
  m.summary = core::summarize(samples);
  for (double q : percentiles) m.percentiles.push_back(core::percentile(samples, q));
  return m;
}

}  // namespace

std::size_t Report::failed_requests() const {
  std::size_t n = 0;
  for (const auto& l : levels) n += l.failed;
  return n;
}

LevelReport summarize_level(RunRecords records, const Slo& slo, const std::vector<double>& percentiles) {
  LevelReport out;
  std::vector<double> ttft, ttft_s, lag, tpot, itl, itl_tok, e2el, e2el_s;
  std::map<long long, double> tokens_by_second;
  for (const RequestRecord& r : records.requests) {
    lag.push_back(r.sent_ms - r.scheduled_ms);
    if (!r.ok()) {
      if (out.failed == 0) out.first_error = r.error_message;
      ++out.failed;
      ++out.errors_by_class[r.error];
      if (r.error == ErrorClass::http_status) ++out.http_status_counts[r.http_status];
      continue;
    }
    ++out.completed;
    if (!r.usage_reported) ++out.usage_missing;
    if (r.truncated()) ++out.truncated_prompts;
    if (!r.chunk_tokens.empty()) ++out.exact_chunk_tokens;
    out.total_input_tokens += r.input_tokens;
    out.total_output_tokens += r.output_tokens;
    const double t1 = r.first_token_ms - r.sent_ms;
    const double e2 = r.last_token_ms - r.sent_ms;
    ttft.push_back(t1);
    ttft_s.push_back(r.first_token_ms - r.scheduled_ms);
    e2el.push_back(e2);
    e2el_s.push_back(r.last_token_ms - r.scheduled_ms);
    // A reply read whole (--no-stream, or a server that ignored "stream") has one arrival: its
    // time per token is unknown, not zero.
    std::optional<double> req_tpot;
    if (r.streamed && r.output_tokens > 1) {
      req_tpot = (e2 - t1) / (r.output_tokens - 1);
      tpot.push_back(*req_tpot);
    }
    const std::vector<int> k = tokens_per_chunk(r);
    for (std::size_t i = 0; i < r.chunk_ms.size(); ++i) {
      tokens_by_second[static_cast<long long>(std::floor(r.chunk_ms[i] / 1000.0))] += k[i];
      if (i == 0) continue;
      const double gap = r.chunk_ms[i] - r.chunk_ms[i - 1];
      itl.push_back(gap);
      for (int j = 0; j < k[i]; ++j) itl_tok.push_back(gap / k[i]);
    }
    const bool good = (slo.ttft_ms <= 0 || r.first_token_ms - r.scheduled_ms <= slo.ttft_ms) &&
                      // one token has no TPOT (vLLM counts it as met); a reply read whole cannot meet one
                      (slo.tpot_ms <= 0 || (r.streamed && (!req_tpot || *req_tpot <= slo.tpot_ms))) &&
                      (slo.e2e_ms <= 0 || r.last_token_ms - r.scheduled_ms <= slo.e2e_ms);
    if (good) ++out.good_requests;
  }
  for (const RequestRecord& r : records.requests)
    if (r.ok() && !r.streamed) ++out.unstreamed;
  out.num_prompts = records.requests.size();
  out.duration_s = records.duration_ms / 1000.0;
  out.max_concurrent_requests = records.peak_in_flight;
  out.cancelled = records.cancelled;
  out.event_loops = records.event_loops;
  for (const auto& [sec, n] : tokens_by_second) out.max_output_tokens_per_s = std::max(out.max_output_tokens_per_s, n);
  if (out.duration_s > 0) {
    out.request_throughput = out.completed / out.duration_s;
    out.output_throughput = out.total_output_tokens / out.duration_s;
    out.total_token_throughput = (out.total_input_tokens + out.total_output_tokens) / out.duration_s;
    if (slo.any()) out.request_goodput = out.good_requests / out.duration_s;
  } else if (slo.any()) {
    out.request_goodput = 0.0;
  }
  out.lat.ttft = stats(ttft, percentiles);
  out.lat.ttft_sched = stats(ttft_s, percentiles);
  out.lat.send_lag = stats(lag, percentiles);
  out.lat.tpot = stats(tpot, percentiles);
  out.lat.itl = stats(itl, percentiles);
  out.lat.itl_token = stats(itl_tok, percentiles);
  out.lat.e2el = stats(e2el, percentiles);
  out.lat.e2el_sched = stats(e2el_s, percentiles);
  out.records = std::move(records);
  return out;
}

}  // namespace dcukit::load
