#include <cmath>

#include "load/report.h"

namespace dcukit::load {
namespace {

using ojson = nlohmann::ordered_json;

ojson number_or_inf(double v) {
  if (std::isinf(v)) return "inf";
  return v;
}

void add_percentiles(ojson& j, const char* key, const core::Summary& s) {
  const std::string k = key;
  j["mean_" + k + "_ms"] = s.mean;
  j["median_" + k + "_ms"] = s.median;
  j["std_" + k + "_ms"] = s.stddev;
  j["p90_" + k + "_ms"] = s.p90;
  j["p95_" + k + "_ms"] = s.p95;
  j["p99_" + k + "_ms"] = s.p99;
  j["p99.9_" + k + "_ms"] = s.p999;
}

ojson request_json(const RequestRecord& r) {
  ojson j;
  j["index"] = r.index;
  j["ok"] = r.ok();
  j["scheduled_ms"] = r.scheduled_ms;
  j["sent_ms"] = r.sent_ms;
  j["first_token_ms"] = r.first_token_ms;
  j["last_token_ms"] = r.last_token_ms;
  j["done_ms"] = r.done_ms;
  j["input_tokens"] = r.input_tokens;
  j["output_tokens"] = r.output_tokens;
  j["usage_reported"] = r.usage_reported;
  j["chunks"] = r.chunk_ms.size();
  j["chunk_tokens"] = r.ok() ? ojson(tokens_per_chunk(r)) : ojson::array();
  j["chunk_tokens_exact"] = r.ok() && !r.chunk_ms.empty() && r.chunk_tokens.size() == r.chunk_ms.size();
  j["reasoning_chunks"] = r.reasoning_chunks;
  j["error_class"] = r.ok() ? ojson(nullptr) : ojson(std::string(error_class_name(r.error)));
  j["http_status"] = r.http_status;
  j["error"] = r.error_message;
  return j;
}

}  // namespace

const std::vector<NamedMetric> kLatencyMetrics = {
    {"ttft", "TTFT", &LatencySummaries::ttft},
    {"tpot", "TPOT", &LatencySummaries::tpot},
    {"itl", "ITL (per chunk)", &LatencySummaries::itl},
    {"e2el", "E2E latency", &LatencySummaries::e2el},
    {"ttft_sched", "TTFT from schedule", &LatencySummaries::ttft_sched},
    {"send_lag", "Send lag (client)", &LatencySummaries::send_lag},
    {"itl_token", "ITL (per token)", &LatencySummaries::itl_token},
    {"e2el_sched", "E2E from schedule", &LatencySummaries::e2el_sched},
};

ojson level_summary_json(const LoadReport& report, const LevelResult& l) {
  ojson j;
  j["date"] = report.date;
  j["backend"] = report.backend;
  j["label"] = l.label;
  j["model_id"] = report.model;
  j["tokenizer_id"] = report.model;
  j["endpoint"] = report.endpoint;
  j["dataset"] = report.dataset;
  j["num_prompts"] = l.num_prompts;
  j["request_rate"] = l.kind == ShapeKind::open ? number_or_inf(l.rate) : ojson("inf");
  j["burstiness"] = l.burstiness;
  j["max_concurrency"] = l.concurrency > 0 ? ojson(l.concurrency) : ojson(nullptr);
  j["load_shape"] = l.kind == ShapeKind::closed ? "closed" : "open";
  j["duration"] = l.duration_s;
  j["completed"] = l.completed;
  j["failed"] = l.failed;
  j["total_input_tokens"] = l.total_input_tokens;
  j["total_output_tokens"] = l.total_output_tokens;
  j["request_throughput"] = l.request_throughput;
  j["request_goodput"] = l.request_goodput ? ojson(*l.request_goodput) : ojson(nullptr);
  j["output_throughput"] = l.output_throughput;
  j["total_token_throughput"] = l.total_token_throughput;
  j["max_output_tokens_per_s"] = l.max_output_tokens_per_s;
  j["max_concurrent_requests"] = l.max_concurrent_requests;
  j["client_event_loops"] = l.records.event_loops;
  for (const auto& m : kLatencyMetrics) add_percentiles(j, m.key, l.lat.*m.member);
  j["usage_missing"] = l.usage_missing;
  for (ErrorClass c : kFailureClasses) {
    const std::string name(error_class_name(c));
    const auto it = l.errors_by_class.find(name);
    j["errors_" + name] = it == l.errors_by_class.end() ? 0 : it->second;
  }
  if (report.slo.any()) {
    j["slo_ttft_ms"] = report.slo.ttft_ms;
    j["slo_tpot_ms"] = report.slo.tpot_ms;
    j["slo_e2e_ms"] = report.slo.e2e_ms;
  }
  if (l.server) {
    j["server_prompt_tokens"] = l.server->prompt_tokens;
    j["server_generation_tokens"] = l.server->generation_tokens;
    j["server_preemptions"] = l.server->preemptions;
    j["server_prefix_cache_hits"] = l.server->prefix_cache_hits;
    j["server_prefix_cache_queries"] = l.server->prefix_cache_queries;
    j["server_kv_cache_usage_peak"] = l.server->kv_cache_usage_peak;
  }
  return j;
}

namespace {

ojson level_json(const LoadReport& report, const LevelResult& l) {
  ojson j = level_summary_json(report, l);
  ojson status = ojson::object();
  for (const auto& [code, n] : l.http_status_counts) status[std::to_string(code)] = n;
  j["http_status_counts"] = status;
  if (l.server) j["server_metrics_missing"] = l.server->missing;
  ojson input_lens = ojson::array(), output_lens = ojson::array(), ttfts = ojson::array(), itls = ojson::array(),
        errors = ojson::array(), requests = ojson::array();
  for (const RequestRecord& r : l.records.requests) {
    input_lens.push_back(r.input_tokens);
    output_lens.push_back(r.ok() ? r.output_tokens : 0);
    ttfts.push_back(r.ok() ? (r.first_token_ms - r.sent_ms) / 1000.0 : 0.0);  // seconds, as vLLM
    ojson gaps = ojson::array();
    for (std::size_t i = 1; r.ok() && i < r.chunk_ms.size(); ++i)
      gaps.push_back((r.chunk_ms[i] - r.chunk_ms[i - 1]) / 1000.0);
    itls.push_back(std::move(gaps));
    errors.push_back(r.error_message);
    requests.push_back(request_json(r));
  }
  j["input_lens"] = std::move(input_lens);
  j["output_lens"] = std::move(output_lens);
  j["ttfts"] = std::move(ttfts);
  j["itls"] = std::move(itls);
  j["errors"] = std::move(errors);
  j["requests"] = std::move(requests);
  return j;
}

}  // namespace

std::string report_json(const LoadReport& report) {
  if (report.levels.size() == 1) return level_json(report, report.levels.front()).dump(2) + "\n";
  ojson j;
  j["date"] = report.date;
  j["backend"] = report.backend;
  j["model_id"] = report.model;
  j["url"] = report.url;
  j["runs"] = ojson::array();
  for (const auto& l : report.levels) j["runs"].push_back(level_json(report, l));
  return j.dump(2) + "\n";
}

std::string report_csv(const LoadReport& report) {
  core::Table t;
  for (const auto& l : report.levels) {
    const ojson s = level_summary_json(report, l);
    if (t.columns.empty()) {
      for (const auto& item : s.items()) t.columns.push_back({item.key()});
    }
    std::vector<std::string> row;
    for (const auto& item : s.items())
      row.push_back(item.value().is_string() ? item.value().get<std::string>() : item.value().dump());
    t.add_row(std::move(row));
  }
  return core::render_csv(t);
}

}  // namespace dcukit::load
