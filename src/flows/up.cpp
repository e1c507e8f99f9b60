#include "flows/up.h"

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flows/results.h"
#include "flows/up_steps.h"
#include "util/duration.h"
#include "util/json_text.h"
#include "util/names.h"
#include "util/signals.h"

namespace dcukit::flows {
namespace {

constexpr util::Name<UpStep> kStepNames[] = {{UpStep::doctor, "doctor"}, {UpStep::prove, "prove"},
                                             {UpStep::plan, "plan"},     {UpStep::serve, "serve"},
                                             {UpStep::smoke, "smoke"},   {UpStep::sweep, "sweep"},
                                             {UpStep::report, "report"}};
constexpr util::Name<Engine> kEngineNames[] = {
    {Engine::vllm, "vllm"}, {Engine::sglang, "sglang"}, {Engine::llama_cpp, "llama.cpp"}, {Engine::command, "command"}};
constexpr util::Name<StepOutcome> kOutcomeNames[] = {
    {StepOutcome::done, "done"}, {StepOutcome::skipped, "skipped"}, {StepOutcome::failed, "failed"}};

}  // namespace

std::string_view to_string(UpStep s) { return util::name_of(kStepNames, s); }
std::optional<UpStep> parse_up_step(std::string_view s) { return util::value_of(kStepNames, s); }
std::string_view to_string(Engine e) { return util::name_of(kEngineNames, e); }
std::optional<Engine> parse_engine(std::string_view s) { return util::value_of(kEngineNames, s); }
std::string_view to_string(StepOutcome o) { return util::name_of(kOutcomeNames, o); }

bool UpReport::ok() const {
  for (const auto& s : steps)
    if (s.outcome == StepOutcome::failed) return false;
  return !interrupted;
}

Status set_engine(UpRequest& r, std::string_view engine, const std::vector<std::string>& command,
                  std::string_view startup) {
  const auto e = parse_engine(engine);
  if (!e) return Error{fmt::format("--engine {}: choose vllm, sglang or llama.cpp, or give the command after --", engine)};
  r.engine = command.empty() ? *e : Engine::command;
  r.command = command;
  const auto budget = util::parse_duration(startup);
  if (!budget) return Error{fmt::format("--startup-timeout {}: {}", startup, budget.error().message)};
  r.startup_timeout = *budget;
  return {};
}

Status check_up(const UpRequest& r) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (r.engine != Engine::command && r.model.empty()) return Error{"--model: name the model's folder or file"};
  if (!r.model.empty() && !fs::exists(r.model, ec))
    return Error{fmt::format("--model {}: no such file or folder", r.model)};
  if (r.engine == Engine::command && r.command.empty())
    return Error{"--engine command: give the server's command line after --"};
  if (r.engine == Engine::llama_cpp && !util::find_program("llama-server"))
    return Error{"--engine llama.cpp: llama-server is not on PATH; add its folder to PATH, or give the command after --"};
  if (r.engine == Engine::sglang && !util::find_program("python3"))
    return Error{"--engine sglang: python3 is not on PATH (sglang runs as python3 -m sglang.launch_server)"};
  fs::create_directories(r.out, ec);
  if (ec) return Error{fmt::format("--out {}: cannot be made: {}", r.out, ec.message())};
  const std::string probe = (fs::path(r.out) / ".dcukit-up-probe").string();
  if (!std::ofstream(probe)) return Error{fmt::format("--out {}: cannot be written to", r.out)};
  fs::remove(probe, ec);
  return {};
}

std::string engine_url(const UpRequest& r) { return fmt::format("http://{}:{}", r.host, r.port); }

UpReport run_up(const UpRequest& request) {
  UpReport report;
  report.run_info = core::collect_run_info("dcukit up", "");
  report.url = engine_url(request);
  UpContext ctx(request, report);
  for (UpStep step : kUpSteps) {
    if (step < request.from) continue;
    if (ctx.stopped()) {
      report.interrupted = true;
      break;
    }
    ctx.say(fmt::format("[{}] ...", to_string(step)));
    const auto start = std::chrono::steady_clock::now();
    StepResult r = run_step(ctx, step);
    r.step = step;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ctx.say(fmt::format("[{}] {}: {}", to_string(step), to_string(r.outcome), r.detail));
    report.steps.push_back(r);
    if (r.outcome == StepOutcome::failed) break;
  }
  ctx.finish();
  return report;
}

std::string render_text(const UpReport& r) {
  std::string out;
  for (const auto& s : r.steps)
    out += fmt::format("{:<7} {:<8} {:6.1f} s  {}{}\n", to_string(s.step), to_string(s.outcome), s.seconds, s.detail,
                       s.file.empty() ? "" : fmt::format(" ({})", s.file));
  if (r.interrupted) out += "interrupted: the steps after the last one above did not run\n";
  if (r.guard_pid > 0) out += fmt::format("guard left running, pid {}: stop it with kill -TERM {}\n", r.guard_pid, r.guard_pid);
  return out;
}

std::string render_json(const UpReport& r) {
  nlohmann::ordered_json j = core::report_head(r.run_info, 1);
  j["url"] = r.url;
  j["ok"] = r.ok();
  j["interrupted"] = r.interrupted;
  j["guard_pid"] = r.guard_pid > 0 ? nlohmann::ordered_json(r.guard_pid) : nlohmann::ordered_json();
  j["steps"] = nlohmann::ordered_json::array();
  for (const auto& s : r.steps)
    j["steps"].push_back({{"step", std::string(to_string(s.step))},
                          {"outcome", std::string(to_string(s.outcome))},
                          {"detail", s.detail},
                          {"file", s.file},
                          {"seconds", s.seconds}});
  return util::json_document(j);
}

}  // namespace dcukit::flows
