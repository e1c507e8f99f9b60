#include "flows/tune_setting.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "flows/results.h"
#include "flows/tune_memory.h"
#include "flows/up_steps.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::flows {
namespace {

using namespace std::chrono_literals;

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The request for one start of the engine: a command under guard, never restarted (a setting
/// that crashes is rejected), in its own folder.
UpRequest setting_request(const TuneRequest& r, const std::vector<std::string>& command, const std::string& dir) {
  UpRequest rq = r.base;
  rq.engine = Engine::command;
  rq.max_restarts = 0;
  rq.command = command;
  rq.out = dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return rq;
}

/// One probe: `requests` at `rate` a second; the share that met the SLO, or an error. `cut` ends
/// the load early (memory over the limit).
Result<double> tune_probe(UpContext& ctx, const TuneRequest& r, double rate, const std::function<bool()>& cut) {
  const std::string tag = fmt::format("{:.3g}", rate);
  const std::string file = ctx.out(fmt::format("load-{}.json", tag));
  const int n = std::max(r.requests, static_cast<int>(std::ceil(rate * 2)));
  const auto c = ctx.run_dcukit({"load", "--url", ctx.report().url, "-r", fmt::format("{:g}", rate), "-n",
                                 std::to_string(n), "--input-len", "64", "--output-len", "16", "--timeout", "60",
                                 "--slo", r.slo, "--json", file, "-q", "--progress", "none"},
                                std::chrono::minutes(10), "load-" + tag, cut);
  auto res = read_result(file);
  if (!res) return Error{fmt::format("dcukit load at {:g}/s wrote no result ({}): {}", rate, c.status.describe(),
                                     tail_lines(c.err, 2))};
  const auto& l = std::get<load::Report>(res->report);
  if (l.levels.empty()) return Error{fmt::format("dcukit load at {:g}/s measured no level", rate)};
  const auto& level = l.levels.front();
  // good requests = goodput x duration, as load computes it; failed requests count against
  if (level.num_prompts == 0 || level.request_throughput <= 0 || !level.request_goodput) return 0.0;
  const double good = *level.request_goodput / level.request_throughput * static_cast<double>(level.completed);
  return good / static_cast<double>(level.num_prompts);
}

}  // namespace

bool says_out_of_memory(const std::string& log) {
  for (const char* s : {"out of memory", "OutOfMemory", "hipErrorOutOfMemory", "CUDA error: out of memory",
                        "failed to allocate", "No available memory for the cache blocks"})
    if (log.find(s) != std::string::npos) return true;
  return false;
}

TuneRow run_setting(const TuneRequest& r, const std::vector<std::string>& command, const std::string& dir,
                    TuneClock::time_point start) {
  TuneRow row;
  const UpRequest rq = setting_request(r, command, dir);
  UpReport up;
  up.url = engine_url(rq);
  UpContext ctx(rq, up);  // its end stops guard, and the engine, completely
  const auto served = serve_step(ctx);
  if (served.outcome != StepOutcome::done) {
    row.outcome = "rejected";
    row.why = (says_out_of_memory(file_text(ctx.out("service.log"))) ? "out of memory at start: " : "") + served.detail;
    return row;
  }
  row.outcome = "served";
  MemoryWatch watch(r.memory_from, r.memory_limit,
                    visible_devices(std::getenv("CUDA_VISIBLE_DEVICES"), std::getenv("HIP_VISIBLE_DEVICES")));
  if (r.memory_limit > 0) watch.start(250ms);
  const auto cut = [&] { return watch.over(); };
  // After each probe: memory over the limit, or the engine gone, rejects the setting.
  const auto rejected_under_load = [&](double rate) {
    if (const auto p = watch.peak()) row.memory_peak = std::max(row.memory_peak, p->share());
    if (watch.over()) {
      row.why = fmt::format("{} under load at {:g}/s: it would run out of memory; lower --max-num-seqs, "
                            "--max-num-batched-tokens or --gpu-memory-utilization", watch.describe(*watch.peak()), rate);
      return true;
    }
    // guard no longer says ready once the engine ended under load
    if (const auto j = guard_status(rq, 5s); j.is_object() && j.value("ready", false)) return false;
    const std::string log = file_text(ctx.out("service.log"));
    row.why = fmt::format("{} under load at {:g}/s: {}", says_out_of_memory(log) ? "ran out of memory" : "the engine ended",
                          rate, tail_lines(log, 2));
    return true;
  };
  const auto spent = [&] { return TuneClock::now() - start > r.budget || ctx.stopped(); };
  // Bracketing: double the rate while it meets the SLO, then halve the gap (geometrically) three times.
  double lo = 0, hi = 0;
  for (double rate = 1; rate <= r.max_rate && !spent(); rate *= 2) {
    auto a = tune_probe(ctx, r, rate, cut);
    if (rejected_under_load(rate)) {
      row.outcome = "rejected";
      return row;
    }
    if (!a) {
      row.why = a.error().message;
      break;
    }
    row.probes.push_back({rate, *a});
    ctx.say(fmt::format("  {:g}/s: {:.0f}% within the SLO", rate, *a * 100));
    if (*a < r.attain) {
      hi = rate;
      break;
    }
    lo = rate;
  }
  for (int i = 0; i < 3 && hi > 0 && lo > 0 && !spent(); ++i) {
    const double mid = std::sqrt(lo * hi);
    auto a = tune_probe(ctx, r, mid, cut);
    if (rejected_under_load(mid)) {
      row.outcome = "rejected";
      return row;
    }
    if (!a) break;
    row.probes.push_back({mid, *a});
    (*a >= r.attain ? lo : hi) = mid;
  }
  row.best_rate = lo;
  if (r.memory_limit > 0 && !watch.peak())
    row.why = fmt::format("device memory not watched: {}", watch.missing());
  return row;
}

std::vector<UtilizationTry> probe_utilization(const TuneRequest& r, const std::vector<std::string>& command) {
  std::vector<UtilizationTry> tries;
  // In hundredths, so that 0.95 - 0.05 x k prints as it reads.
  for (int u = static_cast<int>(std::lround(r.utilization_from * 100)); u >= 50; u -= 5) {
    UtilizationTry t;
    t.value = u / 100.0;
    auto cmd = command;
    cmd.insert(cmd.end(), {"--gpu-memory-utilization", fmt::format("{:.2f}", t.value)});
    const std::string dir = (std::filesystem::path(r.base.out) / fmt::format("utilization-{:.2f}", t.value)).string();
    const UpRequest rq = setting_request(r, cmd, dir);
    UpReport up;
    up.url = engine_url(rq);
    StepResult served;
    {
      UpContext ctx(rq, up);
      ctx.say(fmt::format("memory utilization {:.2f}: starting the engine", t.value));
      served = serve_step(ctx);
      t.started = served.outcome == StepOutcome::done;
    }
    const bool oom = says_out_of_memory(file_text((std::filesystem::path(dir) / "service.log").string()));
    if (!t.started) t.why = (oom ? "out of memory at start: " : "") + served.detail;
    tries.push_back(t);
    if (t.started || !oom || (r.base.stop && r.base.stop->stop_requested())) break;
  }
  return tries;
}

}  // namespace dcukit::flows
