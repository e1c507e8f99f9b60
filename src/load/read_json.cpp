// A load result file read back into a Report: what `report` and `compare` read across hosts and
// versions. The document's own key order matters (the metadata, the metrics and percentiles as
// they were asked), so it is parsed keeping that order. Each level's figures come back as
// written; the per-request detail of --save-detailed is not read back.
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <set>

#include "load/render.h"
#include "util/json_text.h"

namespace dcukit::load {
namespace {

using Ordered = nlohmann::ordered_json;

using util::read_at;

std::string text_at(const Ordered& j, const char* key) {
  std::string out;
  read_at(j, key, out);
  return out;
}

/// The keys to_json writes at the top; any other is the user's --metadata.
const std::set<std::string>& top_keys() {
  static const std::set<std::string> keys{"run_info", "schema_version", "date",     "backend",     "endpoint_type",
                                          "label",    "model_id",       "url",      "notes",       "interrupted",
                                          "problem",  "runs"};
  return keys;
}

/// "p99.9_ttft_ms" -> 99.9 where the stem is `metric`.
std::optional<double> percentile_of(const std::string& key, const std::string& metric) {
  const std::string tail = "_" + metric + "_ms";
  if (key.size() <= tail.size() + 1 || key[0] != 'p' || key.compare(key.size() - tail.size(), tail.size(), tail) != 0)
    return std::nullopt;
  const std::string word = key.substr(1, key.size() - tail.size() - 1);
  char* end = nullptr;
  const double p = std::strtod(word.c_str(), &end);
  if (end != word.c_str() + word.size() || percentile_word(p) != word) return std::nullopt;
  return p;
}

/// The metrics a level holds (by the order of their mean_ keys) and the percentiles of the first.
void metrics_of(const Ordered& level, Report& report) {
  for (const auto& item : level.items()) {
    const std::string& key = item.key();
    if (key.rfind("mean_", 0) != 0 || key.size() < 9 || key.compare(key.size() - 3, 3, "_ms") != 0) continue;
    const std::string stem = key.substr(5, key.size() - 8);
    if (find_metric(stem)) report.percentile_metrics.push_back(stem);
  }
  if (report.percentile_metrics.empty()) return;
  for (const auto& item : level.items())
    if (auto p = percentile_of(item.key(), report.percentile_metrics.front())) report.metric_percentiles.push_back(*p);
}

MetricStats metric_of(const Ordered& level, const Report& report, const std::string& stem) {
  MetricStats s;
  std::optional<double> mean;
  read_at(level, ("mean_" + stem + "_ms").c_str(), mean);
  if (!mean) return s;  // no samples: every figure null
  s.summary.count = 1;  // the count is not in the file: at least one sample
  s.summary.mean = *mean;
  read_at(level, ("median_" + stem + "_ms").c_str(), s.summary.median);
  read_at(level, ("std_" + stem + "_ms").c_str(), s.summary.stddev);
  for (double p : report.metric_percentiles) {
    double v = 0;
    read_at(level, ("p" + percentile_word(p) + "_" + stem + "_ms").c_str(), v);
    s.percentiles.push_back(v);
  }
  return s;
}

Result<LevelReport> level_of(const Ordered& j, const Report& report) {
  if (!j.is_object()) return Error{"runs[]: a level is not an object"};
  LevelReport l;
  read_at(j, "level", l.label);
  const auto shape = text_at(j, "load_shape");
  if (shape == "open") l.kind = ShapeKind::open;
  else if (shape != "closed") return Error{fmt::format("runs[] '{}': load_shape '{}' is neither closed nor open", l.label, shape)};
  if (l.kind == ShapeKind::open) {
    if (text_at(j, "request_rate") == "inf") l.rate = std::numeric_limits<double>::infinity();
    else read_at(j, "request_rate", l.rate);
  }
  read_at(j, "burstiness", l.burstiness);
  read_at(j, "max_concurrency", l.concurrency);
  read_at(j, "num_prompts_sent", l.num_prompts);
  read_at(j, "duration", l.duration_s);
  read_at(j, "completed", l.completed);
  read_at(j, "failed", l.failed);
  read_at(j, "cancelled", l.cancelled);
  read_at(j, "total_input_tokens", l.total_input_tokens);
  read_at(j, "total_output_tokens", l.total_output_tokens);
  read_at(j, "request_throughput", l.request_throughput);
  read_at(j, "request_goodput", l.request_goodput);
  read_at(j, "output_throughput", l.output_throughput);
  read_at(j, "total_token_throughput", l.total_token_throughput);
  read_at(j, "max_output_tokens_per_s", l.max_output_tokens_per_s);
  read_at(j, "max_concurrent_requests", l.max_concurrent_requests);
  read_at(j, "client_event_loops", l.event_loops);
  read_at(j, "usage_missing", l.usage_missing);
  read_at(j, "truncated_prompts", l.truncated_prompts);
  read_at(j, "unstreamed_replies", l.unstreamed);
  read_at(j, "first_error", l.first_error);
  for (ErrorClass c : kFailureClasses) {
    std::size_t n = 0;
    read_at(j, ("errors_" + std::string(to_string(c))).c_str(), n);
    if (n > 0) l.errors_by_class[c] = n;
  }
  if (j.contains("http_status_counts") && j["http_status_counts"].is_object())
    for (const auto& item : j["http_status_counts"].items()) {
      char* end = nullptr;
      const long code = std::strtol(item.key().c_str(), &end, 10);
      if (*end == '\0' && item.value().is_number_unsigned()) l.http_status_counts[code] = item.value().get<std::size_t>();
    }
  for (const auto& stem : report.percentile_metrics)
    if (const NamedMetric* m = find_metric(stem)) l.lat.*(m->member) = metric_of(j, report, stem);
  if (j.contains("server_metrics_dialect")) {
    ServerDelta s;
    read_at(j, "server_metrics_dialect", s.dialect);
    read_at(j, "server_prompt_tokens", s.prompt_tokens);
    read_at(j, "server_generation_tokens", s.generation_tokens);
    read_at(j, "server_preemptions", s.preemptions);
    read_at(j, "server_prefix_cache_hits", s.prefix_cache_hits);
    read_at(j, "server_prefix_cache_queries", s.prefix_cache_queries);
    read_at(j, "server_kv_cache_usage_peak", s.kv_cache_usage_peak);
    read_at(j, "server_metrics_error", s.error);
    read_at(j, "server_metrics_missing", s.missing);
    l.server = std::move(s);
  }
  return l;
}

/// What every level repeats of the run: read from the first.
void run_fields_of(const Ordered& level, Report& r) {
  read_at(level, "endpoint", r.endpoint);
  read_at(level, "dataset", r.dataset);
  read_at(level, "num_prompts", r.num_prompts);
  read_at(level, "input_len", r.input_len);
  read_at(level, "output_len", r.output_len);
  read_at(level, "prompts", r.prompts);
  read_at(level, "prompt_tokens_counted_by", r.tokenizer);
  read_at(level, "stream", r.stream);
  read_at(level, "seed", r.seed);
  read_at(level, "slo_ttft_ms", r.slo.ttft_ms);
  read_at(level, "slo_tpot_ms", r.slo.tpot_ms);
  read_at(level, "slo_e2e_ms", r.slo.e2e_ms);
  metrics_of(level, r);
}

}  // namespace

Result<Report> from_json(std::string_view text) {
  const Ordered j = util::parse_ordered_json(text);
  if (!j.is_object() || !j.contains("run_info") || !j.contains("runs") || !j["runs"].is_array())
    return Error{"not a dcukit load report: no JSON object with run_info and runs (write one with `dcukit load --json`)"};
  Report r;
  r.run_info = core::run_info_from_json(nlohmann::json::parse(j["run_info"].dump()));
  read_at(j, "date", r.date);
  read_at(j, "backend", r.backend);
  read_at(j, "label", r.label);
  read_at(j, "model_id", r.model);
  read_at(j, "url", r.url);
  for (const auto& item : j.items())
    if (!top_keys().count(item.key()) && item.value().is_string())
      r.metadata.emplace_back(item.key(), item.value().get<std::string>());
  read_at(j, "notes", r.notes);
  read_at(j, "interrupted", r.interrupted);
  if (j.contains("problem") && j["problem"].is_string()) r.problem = Problem{ProblemKind::failed, j["problem"].get<std::string>()};
  const auto& runs = j["runs"];
  if (!runs.empty()) run_fields_of(runs.front(), r);
  for (const auto& level : runs) {
    auto l = level_of(level, r);
    if (!l) return l.error();
    r.levels.push_back(std::move(*l));
  }
  return r;
}

}  // namespace dcukit::load
