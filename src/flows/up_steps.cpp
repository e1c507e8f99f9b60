// The checking steps of `dcukit up`: doctor, the card proved, the plan, the sweep, the report.
// Each is a dcukit command run as a child with a deadline; its JSON is read back to decide.
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "flows/results.h"
#include "flows/up_steps.h"
#include "util/signals.h"

namespace dcukit::flows {
namespace {

using std::chrono::minutes;

StepResult step_failed(std::string why) { return {UpStep::doctor, StepOutcome::failed, std::move(why), "", 0}; }
StepResult step_done(std::string what, std::string file = "") {
  return {UpStep::doctor, StepOutcome::done, std::move(what), std::move(file), 0};
}

/// Why a child's run gave no result: how it ended and the end of its stderr.
std::string child_failure(const std::string& what, const util::Captured& c) {
  return fmt::format("{} {}: {}", what, c.status.describe(), tail_lines(c.err.empty() ? c.out : c.err, 3));
}

StepResult doctor_step(UpContext& ctx) {
  const std::string file = ctx.out("doctor.json");
  const auto c = ctx.run_dcukit({"doctor", "--json", file, "-q", "--progress", "none"}, minutes(5), "doctor");
  auto r = read_result(file);
  if (!r) return step_failed(child_failure("dcukit doctor wrote no result:", c));
  const auto& d = std::get<doctor::Report>(r->report);
  const auto s = d.summary();
  std::string first;
  for (const auto& f : d.findings)
    if (f.status == doctor::Verdict::fail && first.empty())
      first = fmt::format("{}{}", f.summary, f.fix.empty() ? "" : "; fix: " + f.fix);
  const std::string counts = fmt::format("{} ok, {} warn, {} fail", s.ok, s.warn, s.fail);
  if (!first.empty() && !ctx.request().force)
    return step_failed(fmt::format("{} ({}); --force goes on past it", first, counts));
  return step_done(counts, file);
}

StepResult prove_step(UpContext& ctx) {
  const std::string file = ctx.out("stress.json");
  const auto c = ctx.run_dcukit({"stress", "--level", "1", "--json", file, "-q", "--progress", "none"}, minutes(10),
                                "stress");
  auto r = read_result(file);
  if (!r) return step_failed(child_failure("dcukit stress wrote no result:", c));
  const auto& s = std::get<stress::Report>(r->report);
  std::string first;
  for (const auto& d : s.devices)
    for (const auto& check : d.checks)
      if (check.verdict == stress::Verdict::fail && first.empty())
        first = fmt::format("device {} {}: {} (action: {})", d.index, stress::to_string(check.kind), check.summary,
                            stress::to_string(check.action));
  const std::string what = fmt::format("stress level 1 on the {} backend, {} device(s): {}",
                                       device::to_string(s.backend), s.devices.size(), stress::to_string(s.verdict()));
  if (!first.empty() && !ctx.request().force) return step_failed(fmt::format("{}; --force goes on past it", first));
  return step_done(what, file);
}

StepResult plan_step(UpContext& ctx) {
  const auto& rq = ctx.request();
  if (rq.engine != Engine::vllm)
    return {UpStep::plan, StepOutcome::skipped,
            fmt::format("plan sizes vLLM deployments; the {} engine is started as given", to_string(rq.engine)), "", 0};
  std::vector<std::string> base{"plan", "--model", rq.model};
  if (!rq.gpu.empty()) base.insert(base.end(), {"--gpu", rq.gpu});
  auto json_args = base;
  json_args.insert(json_args.end(), {"--json", ctx.out("plan.json"), "-q"});
  const auto c = ctx.run_dcukit(json_args, minutes(2), "plan");
  if (!c.status.success()) return step_failed(child_failure("dcukit plan", c));
  auto script_args = base;
  script_args.insert(script_args.end(), {"--emit", "vllm", "-o", ctx.out("launch.sh"), "--host", rq.host, "--port",
                                         std::to_string(rq.port), "-q"});
  const auto s = ctx.run_dcukit(script_args, minutes(2), "plan-script");
  if (!s.status.success()) return step_failed(child_failure("dcukit plan --emit vllm", s));
  return step_done("the budget in plan.json, the launch script in launch.sh", ctx.out("plan.json"));
}

/// The sweep's concurrency levels: 1, 2, 4; with a plan, 1, 4, 16, ... up to what the planned KV
/// cache holds of the sweep's 80-token requests (at most 64). Each level sends twice the highest
/// level's requests, or what it sends in 10 s, whichever ends first: a short sweep.
std::vector<int> sweep_levels(UpContext& ctx, std::string& why) {
  why = "1, 2 and 4 in flight";
  const auto r = std::filesystem::exists(ctx.out("plan.json")) ? read_result(ctx.out("plan.json"))
                                                                : Result<ResultFile>(Error{"no plan"});
  if (!r || !std::holds_alternative<plan::Report>(r->report)) return {1, 2, 4};
  const auto* chosen = std::get<plan::Report>(r->report).plan.chosen();
  if (!chosen || chosen->budget.tokens <= 0) return {1, 2, 4};
  const int cap = static_cast<int>(std::clamp<double>(static_cast<double>(chosen->budget.tokens) / 80.0, 1.0, 64.0));
  std::vector<int> levels;
  for (int c = 1; c < cap; c *= 4) levels.push_back(c);
  levels.push_back(cap);
  why = fmt::format("up to {} in flight: the plan's KV cache holds {} tokens, {} of the sweep's 80-token requests",
                    cap, chosen->budget.tokens, chosen->budget.tokens / 80);
  return levels;
}

StepResult sweep_step(UpContext& ctx) {
  const auto& rq = ctx.request();
  const std::string file = ctx.out("load.json");
  std::string sized;
  const auto levels = sweep_levels(ctx, sized);
  std::string list;
  for (int c : levels) list += (list.empty() ? "" : ",") + std::to_string(c);
  ctx.say(fmt::format("sweep: {}", sized));
  std::vector<std::string> args{"load", "--url", ctx.report().url, "-n", std::to_string(std::max(8, 2 * levels.back())),
                                "--duration", "10s", "-c", list, "--input-len", "64", "--output-len", "16", "--timeout", "120", "--json",
                                file, "-q", "--progress", "none"};
  if (!rq.slo.empty()) args.insert(args.end(), {"--slo", rq.slo});
  const auto c = ctx.run_dcukit(args, minutes(15), "load");
  auto r = read_result(file);
  if (!r) return step_failed(child_failure("dcukit load wrote no result:", c));
  const auto& l = std::get<load::Report>(r->report);
  std::string what;
  for (const auto& level : l.levels)
    what += fmt::format("{}{}: {:.2f} req/s, TTFT median {:.0f} ms{}", what.empty() ? "" : "; ", level.label,
                        level.request_throughput, level.lat.ttft.summary.median,
                        level.request_goodput ? fmt::format(", goodput {:.2f}", *level.request_goodput) : "");
  if (!c.status.success()) return step_failed(fmt::format("{}; {}", what, child_failure("dcukit load", c)));
  return step_done(what, file);
}

StepResult report_step(UpContext& ctx) {
  std::vector<std::string> args{"report"};
  for (const char* name : {"doctor.json", "stress.json", "plan.json", "load.json"})
    if (std::filesystem::exists(ctx.out(name))) args.push_back(ctx.out(name));
  if (args.size() == 1) return {UpStep::report, StepOutcome::skipped, "no step wrote a result to report", "", 0};
  args.insert(args.end(), {"-o", ctx.out("report.html"), "--markdown", ctx.out("report.md"), "--json",
                           ctx.out("report-merged.json")});
  const auto c = ctx.run_dcukit(args, minutes(2), "report");
  if (!c.status.success()) return step_failed(child_failure("dcukit report", c));
  return step_done("report.html, report.md", ctx.out("report.html"));
}

}  // namespace

StepResult run_step(UpContext& ctx, UpStep step) {
  switch (step) {
    case UpStep::doctor: return doctor_step(ctx);
    case UpStep::prove: return prove_step(ctx);
    case UpStep::plan: return plan_step(ctx);
    case UpStep::serve: return serve_step(ctx);
    case UpStep::smoke: return smoke_step(ctx);
    case UpStep::sweep: return sweep_step(ctx);
    case UpStep::report: return report_step(ctx);
  }
  return step_failed("unknown step");
}

std::string tail_lines(const std::string& text, std::size_t n) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() > n) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(n));
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : " | ") + l;
  return out.empty() ? "(no output)" : out;
}

void UpContext::say(const std::string& line) const {
  if (m_request.say) m_request.say(line);
}

bool UpContext::stopped() const { return m_request.stop && m_request.stop->stop_requested(); }

std::string UpContext::out(const std::string& name) const { return (std::filesystem::path(m_request.out) / name).string(); }

util::Captured UpContext::run_dcukit(const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                                     const std::string& log, const std::function<bool()>& cut) {
  util::Captured out;
  util::SpawnOptions o;
  o.argv = {m_request.self};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.stdout_path = o.stderr_path = this->out(log + ".log");
  o.die_with_parent = true;
  auto child = util::Process::spawn(o);
  if (!child) {
    out.status.code = 127;
    out.err = child.error().message;
    return out;
  }
  // Its own session, so that Ctrl-C reaches up alone: up passes it on as SIGINT, which every
  // dcukit command answers by writing what it measured and ending.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::optional<util::ExitStatus> status;
  bool passed_on = false;
  while (!(status = child->wait_for(std::chrono::milliseconds(200)))) {
    if ((stopped() || (cut && cut())) && !passed_on) {
      (void)child->signal_group(SIGINT);
      passed_on = true;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      status = child->stop(std::chrono::seconds(10));
      status->timed_out = true;
      break;
    }
  }
  out.status = *status;
  std::ifstream in(this->out(log + ".log"));
  out.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return out;
}

}  // namespace dcukit::flows
