#include "load/run.h"
#include "load/metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "load/server_metrics.h"
#include "load/steps.h"
#include "serving/probe.h"
#include "serving/url.h"
#include "serving/watcher.h"
#include "util/host.h"
#include "util/signals.h"

namespace dcukit::load {
namespace {

/// The levels of the sweep, in order, with their labels.
std::vector<std::pair<LoadShape, std::string>> levels_of(const Request& q) {
  std::vector<std::pair<LoadShape, std::string>> out;
  const auto open = [&](double rate, int cap) {
    return LoadShape{ShapeKind::open, cap, rate, q.burstiness, q.num_prompts, q.duration_s, q.seed};
  };
  if (!q.rates.empty()) {
    for (double r : q.rates) {
      std::string label = std::isinf(r) ? "rate inf" : fmt::format("rate {:g}/s", r);
      if (q.max_concurrency > 0) label += fmt::format(", at most {} in flight", q.max_concurrency);
      out.emplace_back(open(r, q.max_concurrency), label);
    }
  } else if (q.concurrencies.empty() && q.max_concurrency > 0) {
    // vLLM's meaning of --max-concurrency alone: every request due at once (rate inf), at most
    // this many in flight.
    out.emplace_back(open(INFINITY, q.max_concurrency),
                     fmt::format("rate inf, at most {} in flight", q.max_concurrency));
  } else {
    for (int c : q.concurrencies.empty() ? std::vector<int>{1} : q.concurrencies)
      out.emplace_back(LoadShape{ShapeKind::closed, c, 0, 1, q.num_prompts, q.duration_s, q.seed},
                       fmt::format("concurrency {}", c));
  }
  return out;
}

/// The headers sent to the metrics URL: the server's (API key, -H) only where the user sent
/// them: the same server, or --metrics-auth.
std::vector<std::string> metrics_headers(const Request& q, const std::vector<std::string>& server_headers) {
  if (q.metrics_auth || serving::same_origin(q.url, q.metrics_url)) return server_headers;
  return {};
}

/// What a whole level that failed to connect means: the server went away.
bool server_gone(const LevelReport& l) {
  if (l.completed > 0 || l.failed == 0) return false;
  const auto it = l.errors_by_class.find(ErrorClass::connect);
  return it != l.errors_by_class.end() && it->second == l.failed;
}

void add_level_notes(Steps& s) {
  const Request& q = s.request;
  std::size_t truncated = 0, unstreamed = 0, exact = 0, with_usage = 0, ok = 0;
  for (const auto& l : s.report.levels) {
    truncated += l.truncated_prompts;
    unstreamed += l.unstreamed;
    exact += l.exact_chunk_tokens;
    with_usage += l.completed - l.usage_missing;
    ok += l.completed;
  }
  if (q.body.continuous_usage && with_usage > 0 && exact == 0)
    s.notice(
        "The server ignored --continuous-usage (no content chunk carried usage): tokens per chunk are estimated "
        "from their bytes, as without it");
  if (ok > 0 && truncated == ok && !s.report.problem) {
    // Nothing was measured at the lengths asked for: a result, but not the one requested.
    s.report.problem = Problem{
        ProblemKind::failed,
        fmt::format("the server cut every prompt ({} of {}: it counted fewer prompt tokens than were sent), so no "
                    "request ran at the input length asked for; raise the server's --max-model-len or lower "
                    "--input-len",
                    truncated, ok)};
  } else if (truncated > 0) {
    s.notice(
        fmt::format("{} of {} prompts were cut by the server (it counted fewer prompt tokens than were sent); "
                    "their input lengths are the server's counts",
                    truncated, ok));
  }
  if (unstreamed > 0)
    s.notice(
        fmt::format("{} replies were one JSON body, not a stream (the server ignored \"stream\": true): their "
                    "TTFT is the whole reply, and they have no TPOT or ITL",
                    unstreamed));
  if (s.report.interrupted)
    s.notice("The run was stopped (Ctrl-C or SIGTERM): requests in flight were cancelled; what was measured is kept");
}

void run_levels(Steps& s, Engine& engine, const std::vector<Prompt>& prompts) {
  const Request& q = s.request;
  const auto levels = levels_of(q);
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (s.stopped()) {
      s.report.interrupted = true;
      return;
    }
    const auto& [shape, label] = levels[i];
    std::unique_ptr<serving::MetricsWatcher> watcher;
    std::string watch_error;
    if (!q.metrics_url.empty()) {
      watcher = std::make_unique<serving::MetricsWatcher>(q.metrics_url, metrics_headers(q, s.server.headers), q.tls,
                                                          watched_gauges());
      if (Status st = watcher->start(); !st) {
        watch_error = st.message();
        watcher.reset();
      }
    }
    auto records = engine.run(prompts, shape, s.progress_fn(fmt::format("[{}/{}] {}", i + 1, levels.size(), label)));
    if (!records) {
      s.problem(ProblemKind::failed, "the load engine failed during " + label + ": " + records.error().message);
      return;
    }
    LevelReport level = summarize_level(std::move(*records), q.slo, s.report.metric_percentiles);
    level.label = label;
    level.kind = shape.kind;
    level.concurrency = shape.concurrency;
    level.rate = shape.rate;
    level.burstiness = shape.burstiness;
    if (watcher) level.server = server_delta(watcher->stop());
    if (!watch_error.empty()) {
      level.server = ServerDelta{};
      level.server->error = watch_error;
      for (const char* f : {"prompt_tokens", "generation_tokens", "preemptions", "prefix_cache_hits",
                            "prefix_cache_queries", "kv_cache_usage_peak"})
        level.server->missing.emplace_back(f);
    }
    const bool cancelled = level.cancelled;
    const bool gone = server_gone(level);
    s.report.levels.push_back(std::move(level));
    if (cancelled) {
      s.report.interrupted = true;
      return;
    }
    if (gone && i + 1 < levels.size()) {
      s.problem(ProblemKind::failed, fmt::format("the server stopped answering during {} (every request failed to "
                                                 "connect); the levels after it were not run",
                                                 label));
      return;
    }
  }
}

/// The run, whatever ended it: every level measured before is in the Report.
Report measure(const Request& request) {
  Request q = request;  // the steps fill in what the server says (the model, the endpoint)
  Steps s(q);
  if (!s.check_url()) return s.finish();
  if (!s.wait_ready() || !s.resolve_model()) return s.finish();
  std::vector<Prompt> prompts;
  if (!s.make_prompts(prompts)) return s.finish();
  EngineConfig config{s.generate_url, q.body, s.server.headers, q.timeout, q.tls, q.threads, q.save_detailed, q.stop};
  auto engine = std::make_unique<Engine>(config);
  if (q.trial && !s.trial(engine, config, prompts)) return s.finish();
  if (!s.check_metrics_url() || !s.check_open_files(levels_of(q)) || !s.warm_up(*engine)) return s.finish();
  run_levels(s, *engine, prompts);
  add_level_notes(s);
  return s.finish();
}

}  // namespace

Result<Report> run(const Request& request) {
  Report report = measure(request);
  if (report.levels.empty() && !report.interrupted && report.problem &&
      report.problem->kind == ProblemKind::bad_input)
    return Error{report.problem->message};  // nothing was sent: the input was wrong
  return report;
}

}  // namespace dcukit::load
