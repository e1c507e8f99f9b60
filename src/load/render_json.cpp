#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "load/metrics.h"
#include "load/render.h"
#include "util/json_text.h"

namespace dcukit::load {
namespace {

using ojson = nlohmann::ordered_json;

ojson number_or_inf(double v) {
  if (std::isinf(v)) return "inf";
  return v;
}

ojson optional_number(const std::optional<double>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

void add_metric(ojson& j, const Report& report, const NamedMetric& m, const MetricStats& s) {
  const std::string k = m.key;
  const bool any = s.summary.count > 0;
  j["mean_" + k + "_ms"] = any ? ojson(s.summary.mean) : ojson(nullptr);
  j["median_" + k + "_ms"] = any ? ojson(s.summary.median) : ojson(nullptr);
  j["std_" + k + "_ms"] = any ? ojson(s.summary.stddev) : ojson(nullptr);
  for (std::size_t i = 0; i < report.metric_percentiles.size() && i < s.percentiles.size(); ++i)
    j["p" + percentile_word(report.metric_percentiles[i]) + "_" + k + "_ms"] =
        any ? ojson(s.percentiles[i]) : ojson(nullptr);
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
  j["streamed"] = r.streamed;
  j["truncated"] = r.truncated();
  j["chunks"] = r.chunk_ms.size();
  j["chunk_tokens"] = r.ok() ? ojson(tokens_per_chunk(r)) : ojson::array();
  j["chunk_tokens_exact"] = r.ok() && !r.chunk_ms.empty() && r.chunk_tokens.size() == r.chunk_ms.size();
  j["reasoning_chunks"] = r.reasoning_chunks;
  j["error_class"] = r.ok() ? ojson(nullptr) : ojson(std::string(to_string(r.error)));
  j["http_status"] = r.http_status;
  j["error"] = r.error_message;
  return j;
}

void add_run_state(ojson& j, const Report& report) {
  j["notes"] = report.notes;
  j["interrupted"] = report.interrupted;
  j["problem"] = report.problem ? ojson(report.problem->message) : ojson(nullptr);
}

void add_detail(ojson& j, const LevelReport& l) {
  ojson input_lens = ojson::array(), output_lens = ojson::array(), ttfts = ojson::array(), itls = ojson::array(),
        start_times = ojson::array(), latencies = ojson::array(), texts = ojson::array(), errors = ojson::array(),
        requests = ojson::array();
  for (const RequestRecord& r : l.records.requests) {
    input_lens.push_back(r.input_tokens);
    output_lens.push_back(r.ok() ? r.output_tokens : 0);
    ttfts.push_back(r.ok() ? (r.first_token_ms - r.sent_ms) / 1000.0 : 0.0);  // seconds, as vLLM
    ojson gaps = ojson::array();
    for (std::size_t i = 1; r.ok() && i < r.chunk_ms.size(); ++i)
      gaps.push_back((r.chunk_ms[i] - r.chunk_ms[i - 1]) / 1000.0);
    itls.push_back(std::move(gaps));
    start_times.push_back(r.sent_ms / 1000.0);
    latencies.push_back(r.ok() ? (r.last_token_ms - r.sent_ms) / 1000.0 : 0.0);
    texts.push_back(r.text);
    errors.push_back(r.error_message);
    requests.push_back(request_json(r));
  }
  j["input_lens"] = std::move(input_lens);
  j["output_lens"] = std::move(output_lens);
  j["ttfts"] = std::move(ttfts);
  j["itls"] = std::move(itls);
  j["start_times"] = std::move(start_times);
  j["latencies"] = std::move(latencies);
  j["generated_texts"] = std::move(texts);
  j["errors"] = std::move(errors);
  j["requests"] = std::move(requests);
}

ojson level_json(const Report& report, const LevelReport& l) {
  ojson j = level_summary_json(report, l);
  ojson status = ojson::object();
  for (const auto& [code, n] : l.http_status_counts) status[std::to_string(code)] = n;
  j["http_status_counts"] = status;
  if (l.server) j["server_metrics_missing"] = l.server->missing;
  if (report.save_detailed) add_detail(j, l);
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

const NamedMetric* find_metric(std::string_view key) {
  for (const auto& m : kLatencyMetrics)
    if (key == m.key) return &m;
  return nullptr;
}

std::string percentile_word(double p) {
  if (p == std::floor(p)) return fmt::format("{}", static_cast<long long>(p));
  return fmt::format("{}", p);
}

ojson level_summary_json(const Report& report, const LevelReport& l) {
  ojson j;
  j["date"] = report.date;
  j["backend"] = report.backend;
  j["endpoint_type"] = report.backend;
  j["label"] = report.label;
  j["level"] = l.label;
  j["model_id"] = report.model;
  j["tokenizer_id"] = report.model;
  j["endpoint"] = report.endpoint;
  j["url"] = report.url;
  j["dataset"] = report.dataset;
  j["num_prompts"] = report.num_prompts > 0 ? report.num_prompts : l.num_prompts;  // -n, as vLLM records it
  j["num_prompts_sent"] = l.num_prompts;
  for (const auto& [k, v] : report.metadata) j[k] = v;
  j["request_rate"] = l.kind == ShapeKind::open ? number_or_inf(l.rate) : ojson("inf");
  j["burstiness"] = l.burstiness;
  j["max_concurrency"] = l.concurrency > 0 ? ojson(l.concurrency) : ojson(nullptr);
  j["load_shape"] = std::string(to_string(l.kind));
  j["input_len"] = report.dataset == "random" ? ojson(report.input_len) : ojson(nullptr);
  j["output_len"] = report.output_len > 0 ? ojson(report.output_len) : ojson(nullptr);
  j["prompts"] = report.prompts;
  j["prompt_tokens_counted_by"] = report.tokenizer.empty() ? ojson(nullptr) : ojson(report.tokenizer);
  j["stream"] = report.stream;
  j["seed"] = report.seed;
  j["duration"] = l.duration_s;
  j["completed"] = l.completed;
  j["failed"] = l.failed;
  j["cancelled"] = l.cancelled;
  j["total_input_tokens"] = l.total_input_tokens;
  j["total_output_tokens"] = l.total_output_tokens;
  j["request_throughput"] = l.request_throughput;
  j["request_goodput"] = l.request_goodput ? ojson(*l.request_goodput) : ojson(nullptr);
  j["output_throughput"] = l.output_throughput;
  j["total_token_throughput"] = l.total_token_throughput;
  j["max_output_tokens_per_s"] = l.max_output_tokens_per_s;
  j["max_concurrent_requests"] = l.max_concurrent_requests;
  j["client_event_loops"] = l.event_loops;
  for (const auto& key : report.percentile_metrics)
    if (const NamedMetric* m = find_metric(key)) add_metric(j, report, *m, l.lat.*(m->member));
  j["usage_missing"] = l.usage_missing;
  j["truncated_prompts"] = l.truncated_prompts;
  j["unstreamed_replies"] = l.unstreamed;
  for (ErrorClass c : kFailureClasses) {
    const auto it = l.errors_by_class.find(c);
    j["errors_" + std::string(to_string(c))] = it == l.errors_by_class.end() ? 0 : it->second;
  }
  j["first_error"] = l.first_error ? ojson(*l.first_error) : ojson(nullptr);
  if (report.slo.any()) {
    j["slo_ttft_ms"] = report.slo.ttft_ms;
    j["slo_tpot_ms"] = report.slo.tpot_ms;
    j["slo_e2e_ms"] = report.slo.e2e_ms;
  }
  if (l.server) {
    const ServerDelta& s = *l.server;
    j["server_metrics_dialect"] = s.dialect.empty() ? ojson(nullptr) : ojson(s.dialect);
    j["server_prompt_tokens"] = optional_number(s.prompt_tokens);
    j["server_generation_tokens"] = optional_number(s.generation_tokens);
    j["server_preemptions"] = optional_number(s.preemptions);
    j["server_prefix_cache_hits"] = optional_number(s.prefix_cache_hits);
    j["server_prefix_cache_queries"] = optional_number(s.prefix_cache_queries);
    j["server_kv_cache_usage_peak"] = optional_number(s.kv_cache_usage_peak);
    j["server_metrics_error"] = s.error.empty() ? ojson(nullptr) : ojson(s.error);
  }
  return j;
}

ojson to_json(const Report& report) {
  // One shape whatever the number of levels: run_info first, then the schema, then the runs.
  ojson j = core::report_head(report.run_info, kLoadSchemaVersion);
  j["date"] = report.date;
  j["backend"] = report.backend;
  j["endpoint_type"] = report.backend;
  j["label"] = report.label;
  j["model_id"] = report.model;
  j["url"] = report.url;
  for (const auto& [k, v] : report.metadata) j[k] = v;
  add_run_state(j, report);
  j["runs"] = ojson::array();
  for (const auto& l : report.levels) j["runs"].push_back(level_json(report, l));
  return j;
}

std::vector<ResultFile> vllm_result_files(const Report& report, const std::string& dir, const std::string& filename) {
  std::vector<ResultFile> out;
  for (const auto& l : report.levels) {
    std::string name = filename;
    if (name.empty()) {
      // vLLM's own: {label}-{rate}qps[-concurrency{N}]-{model}-{date}.json, the rate as Python prints it.
      const std::string rate =
          l.kind == ShapeKind::open && std::isfinite(l.rate) ? fmt::format("{}", l.rate) : std::string("inf");
      const std::string shown_rate = rate.find_first_of(".ei") == std::string::npos ? rate + ".0" : rate;
      const std::string cap = l.concurrency > 0 ? fmt::format("-concurrency{}", l.concurrency) : "";
      const auto slash = report.model.rfind('/');
      const std::string model = slash == std::string::npos ? report.model : report.model.substr(slash + 1);
      name = fmt::format("{}-{}qps{}-{}-{}.json", report.label, shown_rate, cap, model, report.date);
    }
    ojson j = core::report_head(report.run_info, kLoadSchemaVersion);
    j.update(level_json(report, l));
    add_run_state(j, report);
    out.push_back({dir.empty() ? name : dir + "/" + name, util::json_text(j, 2) + "\n"});
  }
  return out;
}

std::string report_csv(const Report& report) {
  core::Table t;
  for (const auto& l : report.levels) {
    const ojson s = level_summary_json(report, l);
    if (t.columns.empty()) {
      for (const auto& item : s.items()) t.columns.push_back({item.key()});
    }
    std::vector<std::string> row;
    for (const auto& item : s.items()) {
      const ojson& v = item.value();
      row.push_back(v.is_null() ? "" : v.is_string() ? v.get<std::string>() : util::json_text(v));
    }
    t.add_row(std::move(row));
  }
  return core::render_csv(t);
}

std::vector<std::string> reserved_keys() {
  Report r;
  r.percentile_metrics = {"ttft"};
  r.slo.ttft_ms = 1;
  LevelReport l;
  l.server = ServerDelta{};
  std::vector<std::string> keys;
  const ojson level = level_json(r, l);
  for (const auto& item : level.items()) keys.push_back(item.key());
  for (const char* k : {"run_info", "runs", "notes", "interrupted", "problem", "input_lens", "output_lens", "ttfts",
                        "itls", "start_times", "latencies", "generated_texts", "errors", "requests"})
    keys.emplace_back(k);
  return keys;
}

}  // namespace dcukit::load
