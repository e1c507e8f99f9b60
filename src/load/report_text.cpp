#include <fmt/format.h>

#include <cmath>

#include "load/report.h"

namespace dcukit::load {
namespace {

std::string f1(double v) {
  return fmt::format("{:.1f}", v);
}
std::string f2(double v) {
  return fmt::format("{:.2f}", v);
}

std::string rate_text(const LevelResult& l) {
  if (l.kind == ShapeKind::closed) return "-";
  return std::isinf(l.rate) ? "inf" : f2(l.rate);
}

}  // namespace

std::vector<core::Table> report_tables(const LoadReport& report) {
  std::vector<core::Table> tables;
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
    std::vector<std::string> row{l.label,
                                 l.concurrency > 0 ? std::to_string(l.concurrency) : "-",
                                 rate_text(l),
                                 std::to_string(l.completed),
                                 std::to_string(l.failed),
                                 f2(l.request_throughput),
                                 f1(l.output_throughput),
                                 f1(l.lat.ttft.median),
                                 f1(l.lat.ttft.p99),
                                 f2(l.lat.tpot.median),
                                 f2(l.lat.itl.median),
                                 f2(l.lat.itl.p99),
                                 f1(l.lat.e2el.p99),
                                 l.lat.tpot.median > 0 ? f1(1000.0 / l.lat.tpot.median) : "-"};
    if (report.slo.any()) row.push_back(l.request_goodput ? f2(*l.request_goodput) : "-");
    sum.add_row(std::move(row));
  }
  sum.notes.push_back(
      "Prefill latency is TTFT; decode throughput per request is 1000 / TPOT (seed 002's two columns).");
  if (report.slo.any()) {
    sum.notes.push_back(
        fmt::format("Goodput counts requests within the SLO: ttft {} ms, tpot {} ms, e2e {} ms (0 = unset).",
                    report.slo.ttft_ms, report.slo.tpot_ms, report.slo.e2e_ms));
  }
  tables.push_back(std::move(sum));

  for (const auto& l : report.levels) {
    core::Table t;
    t.title = fmt::format(
        "{}: {} ok, {} failed in {:.2f} s; {} input and {} output tokens; at most {} in flight, "
        "{} client event loop{}",
        l.label, l.completed, l.failed, l.duration_s, l.total_input_tokens, l.total_output_tokens,
        l.max_concurrent_requests, l.records.event_loops, l.records.event_loops == 1 ? "" : "s");
    t.columns = {
        {"metric (ms)", core::Align::left}, {"mean"}, {"median"}, {"std"}, {"p90"}, {"p95"}, {"p99"}, {"p99.9"}};
    for (const auto& m : kLatencyMetrics) {
      const core::Summary& s = l.lat.*m.member;
      t.add_row({m.title, f2(s.mean), f2(s.median), f2(s.stddev), f2(s.p90), f2(s.p95), f2(s.p99), f2(s.p999)});
    }
    if (l.failed > 0) {
      std::string errs;
      for (const auto& [k, n] : l.errors_by_class) errs += fmt::format("{}{} {}", errs.empty() ? "" : ", ", k, n);
      t.notes.push_back("Errors: " + errs);
      for (const auto& r : l.records.requests) {
        if (!r.ok()) {
          t.notes.push_back("First error: " + r.error_message);
          break;
        }
      }
    }
    if (l.usage_missing > 0) {
      t.notes.push_back(
          fmt::format("{} responses had no usage: their token counts are content chunks", l.usage_missing));
    }
    if (l.server) {
      const auto& s = *l.server;
      t.notes.push_back(fmt::format(
          "Server /metrics over the level: {:.0f} prompt and {:.0f} generation tokens, {:.0f} preemptions, "
          "prefix cache {:.0f} hits of {:.0f} queries, peak KV-cache use {}",
          s.prompt_tokens, s.generation_tokens, s.preemptions, s.prefix_cache_hits, s.prefix_cache_queries,
          s.kv_cache_usage_peak < 0 ? std::string("n/a") : fmt::format("{:.1f}%", s.kv_cache_usage_peak * 100)));
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace dcukit::load
