#include <fmt/format.h>

#include <cmath>

#include "load/render.h"

namespace dcukit::load {
namespace {

std::string f1(double v) {
  return fmt::format("{:.1f}", v);
}
std::string f2(double v) {
  return fmt::format("{:.2f}", v);
}

/// A figure of a metric, or "-" when the metric had no samples.
std::string cell(const MetricStats& m, double core::Summary::*field, std::string (*fmt_fn)(double) = f2) {
  return m.summary.count == 0 ? "-" : fmt_fn(m.summary.*field);
}

std::string optional_cell(const std::optional<double>& v) {
  return v ? fmt::format("{:.0f}", *v) : "-";
}

std::string rate_text(const LevelReport& l) {
  if (l.kind == ShapeKind::closed) return "-";
  return std::isinf(l.rate) ? "inf" : f2(l.rate);
}

core::Table summary_table(const Report& report) {
  core::Table sum;
  sum.title = fmt::format("dcukit load: {} {} ({})", report.model, report.endpoint, report.url);
  sum.columns = {{"level", core::Align::left},
                 {"conc"},
                 {"rate/s"},
                 {"ok"},
                 {"failed"},
                 {"req/s"},
                 {"out tok/s"},
                 {"TTFT p50 ms"},
                 {"TTFT p99 ms"},
                 {"TPOT p50 ms"},
                 {"ITL p50 ms"},
                 {"ITL p99 ms"},
                 {"E2E p99 ms"},
                 {"decode tok/s/req"}};
  if (report.slo.any()) sum.columns.push_back({"goodput req/s"});
  for (const auto& l : report.levels) {
    const auto& tpot = l.lat.tpot.summary;
    std::vector<std::string> row{l.label,
                                 l.concurrency > 0 ? std::to_string(l.concurrency) : "-",
                                 rate_text(l),
                                 std::to_string(l.completed),
                                 std::to_string(l.failed),
                                 f2(l.request_throughput),
                                 f1(l.output_throughput),
                                 cell(l.lat.ttft, &core::Summary::median, f1),
                                 cell(l.lat.ttft, &core::Summary::p99, f1),
                                 cell(l.lat.tpot, &core::Summary::median),
                                 cell(l.lat.itl, &core::Summary::median),
                                 cell(l.lat.itl, &core::Summary::p99),
                                 cell(l.lat.e2el, &core::Summary::p99, f1),
                                 tpot.count > 0 && tpot.median > 0 ? f1(1000.0 / tpot.median) : "-"};
    if (report.slo.any()) row.push_back(l.request_goodput ? f2(*l.request_goodput) : "-");
    sum.add_row(std::move(row));
  }
  sum.notes.push_back(
      "Prefill latency is TTFT; decode throughput per request is 1000 / TPOT (seed 002's two columns); "
      "\"-\": no samples.");
  if (report.slo.any()) {
    sum.notes.push_back(
        fmt::format("Goodput counts requests within the SLO: ttft {} ms, tpot {} ms, e2e {} ms (0 = unset).",
                    report.slo.ttft_ms, report.slo.tpot_ms, report.slo.e2e_ms));
  }
  if (!report.tokenizer.empty())
    sum.notes.push_back(fmt::format("Prompts: {}, their tokens counted through {}.", report.prompts, report.tokenizer));
  for (const auto& n : report.notes) sum.notes.push_back(n);
  return sum;
}

void add_level_notes(core::Table& t, const LevelReport& l) {
  if (l.failed > 0) {
    std::string errs;
    for (const auto& [c, n] : l.errors_by_class)
      errs += fmt::format("{}{} {}", errs.empty() ? "" : ", ", to_string(c), n);
    t.notes.push_back("Errors: " + errs);
    for (const auto& r : l.records.requests) {
      if (!r.ok()) {
        t.notes.push_back("First error: " + r.error_message);
        break;
      }
    }
  }
  if (l.cancelled) t.notes.push_back("The run was stopped during this level: its requests in flight were cancelled.");
  if (l.usage_missing > 0)
    t.notes.push_back(fmt::format("{} responses had no usage: their token counts are content chunks", l.usage_missing));
  if (l.truncated_prompts > 0)
    t.notes.push_back(
        fmt::format("{} prompts were cut by the server; their input tokens are its counts", l.truncated_prompts));
  if (l.server) {
    const auto& s = *l.server;
    t.notes.push_back(fmt::format(
        "Server /metrics ({}) over the level: {} prompt and {} generation tokens, {} preemptions, prefix cache {} "
        "hits of {} queries, peak KV-cache use {} (\"-\": not exposed)",
        s.dialect.empty() ? "no known dialect" : s.dialect, optional_cell(s.prompt_tokens),
        optional_cell(s.generation_tokens), optional_cell(s.preemptions), optional_cell(s.prefix_cache_hits),
        optional_cell(s.prefix_cache_queries),
        s.kv_cache_usage_peak ? fmt::format("{:.1f}%", *s.kv_cache_usage_peak * 100) : std::string("-")));
    if (!s.error.empty()) t.notes.push_back("Last /metrics scrape failed: " + s.error);
  }
}

}  // namespace

std::string render_text(const Report& report) {
  std::string out;
  for (const auto& t : report_tables(report)) out += core::render_text(t) + "\n";
  return out;
}

std::string render_markdown(const Report& report) {
  std::string out;
  for (const auto& t : report_tables(report)) out += core::render_markdown(t) + "\n";
  return out;
}

std::vector<core::Table> report_tables(const Report& report) {
  std::vector<core::Table> tables;
  tables.push_back(summary_table(report));
  for (const auto& l : report.levels) {
    core::Table t;
    t.title = fmt::format(
        "{}: {} ok, {} failed in {:.2f} s; {} input and {} output tokens; at most {} in flight, "
        "{} client event loop{}",
        l.label, l.completed, l.failed, l.duration_s, l.total_input_tokens, l.total_output_tokens,
        l.max_concurrent_requests, l.event_loops, l.event_loops == 1 ? "" : "s");
    t.columns = {{"metric (ms)", core::Align::left}, {"mean"}, {"median"}, {"std"}};
    for (double p : report.metric_percentiles) t.columns.push_back({"p" + percentile_word(p)});
    for (const auto& key : report.percentile_metrics) {
      const NamedMetric* m = find_metric(key);
      if (!m) continue;
      const MetricStats& s = l.lat.*(m->member);
      std::vector<std::string> row{m->title, cell(s, &core::Summary::mean), cell(s, &core::Summary::median),
                                   cell(s, &core::Summary::stddev)};
      for (std::size_t i = 0; i < report.metric_percentiles.size(); ++i)
        row.push_back(s.summary.count == 0 || i >= s.percentiles.size() ? "-" : f2(s.percentiles[i]));
      t.add_row(std::move(row));
    }
    add_level_notes(t, l);
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace dcukit::load
