#include "load/validate.h"

#include <fmt/format.h>

#include <algorithm>

#include "load/render.h"
#include "serving/url.h"
#include "util/net.h"
#include "util/redact.h"

namespace dcukit::load {
namespace {

constexpr double kMaxPromptTokensHeld = 2e8;  // token ids held in memory at once (800 MB)

bool has_line_break(const std::string& s) {
  return s.find_first_of("\r\n") != std::string::npos;
}

Status check_target(Request& q) {
  if (q.url.empty()) return Error{"--url is required, e.g. --url http://127.0.0.1:8000"};
  const std::string scheme = serving::scheme_of(q.url);
  if (scheme != "http" && scheme != "https")
    return Error{fmt::format("--url {}: use an http or https URL, e.g. --url http://127.0.0.1:8000",
                             util::redact(q.url))};
  if (auto hp = util::url_host_port(q.url); !hp) return Error{"--url " + hp.error().message};
  if (!q.metrics_url.empty())
    if (auto hp = util::url_host_port(q.metrics_url); !hp) return Error{"--metrics-url " + hp.error().message};
  if (q.endpoint.empty() || q.endpoint.front() != '/') q.endpoint = "/" + q.endpoint;
  for (const auto& h : q.headers)
    if (h.find(':') == std::string::npos || has_line_break(h))
      return Error{fmt::format("--header '{}' needs the form 'Name: value' on one line", h)};
  return {};
}

Status check_workload(Request& q) {
  if (q.body.continuous_usage && (!q.body.include_usage || !q.body.stream))
    return Error{"--continuous-usage needs streamed usage; drop --no-usage and --no-stream"};
  const auto& w = q.workload;
  if (w.kind != DatasetKind::random && w.path.empty())
    return Error{fmt::format("--dataset {} needs --dataset-path FILE", to_string(w.kind))};
  if (w.prefix_len > w.input_len)
    return Error{fmt::format("--prefix-len {} is longer than --input-len {}", w.prefix_len, w.input_len)};
  if (w.kind == DatasetKind::random && w.output_len == 0)
    return Error{"--output-len 0 keeps a file's lengths; random prompts need a length, e.g. --output-len 128"};
  if (q.prompts == PromptMode::ids && q.endpoint.find("chat") != std::string::npos)
    return Error{"--prompt ids needs /v1/completions; chat takes text"};
  if (q.num_prompts == 0 && q.duration_s <= 0) q.num_prompts = 200;
  const double held = static_cast<double>(std::max<std::size_t>(q.num_prompts, 1000)) * w.input_len;
  if (w.kind == DatasetKind::random && held > kMaxPromptTokensHeld)
    return Error{
        fmt::format("-n {} prompts of --input-len {} would hold {:.0f} million tokens in memory; lower -n "
                    "or --input-len (at most {:.0f} million)",
                    q.num_prompts, w.input_len, held / 1e6, kMaxPromptTokensHeld / 1e6)};
  return {};
}

Status check_shape(const Request& q) {
  if (!q.concurrencies.empty() && q.max_concurrency > 0 && q.rates.empty())
    return Error{
        "-c runs a closed loop at that concurrency; --max-concurrency caps an open loop (-r). Pass one of "
        "them (--max-concurrency alone means -r inf, as in vLLM)"};
  if (!q.concurrencies.empty() && !q.rates.empty())
    return Error{"-c (closed loop) and -r (open loop) exclude each other; cap an open loop with --max-concurrency"};
  if (q.slo.tpot_ms > 0 && !q.body.stream)
    return Error{"--slo tpot needs streamed replies: --no-stream has no time per output token"};
  return {};
}

Status check_results(Request& q) {
  const auto reserved = reserved_keys();
  for (std::size_t i = 0; i < q.metadata.size(); ++i) {
    const auto& k = q.metadata[i].first;
    if (std::find(reserved.begin(), reserved.end(), k) != reserved.end())
      return Error{fmt::format("--metadata {}={}: '{}' is a field of the results; choose another key", k,
                               q.metadata[i].second, k)};
    for (std::size_t j = 0; j < i; ++j)
      if (q.metadata[j].first == k) return Error{fmt::format("--metadata: '{}' is given twice", k)};
  }
  if (q.percentile_metrics.empty())
    for (const auto& m : kLatencyMetrics) q.percentile_metrics.emplace_back(m.key);
  if (q.metric_percentiles.empty()) q.metric_percentiles = {90, 95, 99, 99.9};
  return {};
}

}  // namespace

Status validate(Request& q) {
  for (const auto& check : {check_target, check_workload})
    if (Status s = check(q); !s) return s;
  if (Status s = check_shape(q); !s) return s;
  return check_results(q);
}

}  // namespace dcukit::load
