// `dcukit stress`: parsing and rendering; the engine is src/stress/ (stress::run).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "cli/sources.h"
#include "stress/levels.h"
#include "stress/render.h"
#include "stress/run.h"
#include "util/duration.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

constexpr const char* kStress = "stress";

struct StressArgs {
  int level = 1;
  double duration_s = 0, sample_every_s = 1, call_timeout_s = 120;
  std::vector<int> devices;
  std::vector<std::string> only;
  std::string backend, precision;
  SourceFlags in;
  Output json{"--json", ""}, csv{"--csv", ""}, markdown{"--markdown", ""};
};

ExitCode run_stress(const StressArgs& a) {
  (void)util::StopToken::process();  // SIGINT/SIGTERM from here on stop the run, never kill it unwritten
  if (Status s = check_outputs({a.json, a.csv, a.markdown}); !s) return fail(kStress, ExitCode::bad_input, s.message());
  auto collect = collect_options(a.in);
  if (!collect) return fail(kStress, ExitCode::bad_input, collect.error().message);
  stress::Request q;
  q.level = a.level;
  if (a.duration_s > 0) q.duration = std::chrono::seconds(std::llround(a.duration_s));
  for (const auto& name : a.only) {
    auto k = stress::parse_check(name);
    if (!k)
      return fail(kStress, ExitCode::bad_input,
                  fmt::format("--only {}: choose from health, kernel, gemm, hbm, memtest, pcie, power", name));
    q.only.push_back(*k);
  }
  if (!a.precision.empty()) q.precision = device::parse_precision(a.precision);  // CLI11 checked the name
  if (!a.backend.empty()) q.backend = device::parse_backend_kind(a.backend);     // CLI11 checked the name
  q.devices = a.devices;
  q.collect = *collect;
  q.sample_every = std::chrono::milliseconds(std::llround(a.sample_every_s * 1000));
  q.call_timeout = std::chrono::milliseconds(std::llround(a.call_timeout_s * 1000));
  q.command = command_line();
  q.stop = &util::StopToken::process();
  if (progress().shown()) q.progress = [](const std::string& line) { progress().line("  " + line); };
  auto report = stress::run(q);
  progress().close();
  if (!report) return fail(kStress, ExitCode::bad_input, report.error().message);
  if (!a.json.to_stdout() && !a.csv.to_stdout() && !a.markdown.to_stdout())
    print_report([&] { return stress::render_text(*report); });
  std::fflush(stdout);
  bool written = emit(kStress, a.json, util::json_document(stress::to_json(*report)));
  written = emit(kStress, a.csv, a.csv.asked() ? stress::render_csv(*report) : std::string()) && written;
  written = emit(kStress, a.markdown, a.markdown.asked() ? stress::render_markdown(*report) : std::string()) && written;
  for (const auto* out : {&a.json, &a.csv, &a.markdown})
    if (out->asked() && !out->to_stdout() && written) print_note(kStress, "wrote " + out->path);
  const stress::Verdict v = report->verdict();
  // Every check skipped is nothing checked: not a pass.
  if (v == stress::Verdict::skip) print_note(kStress, "every check was skipped: nothing was checked");
  const ExitCode code = report->interrupted                     ? ExitCode::interrupted
                        : v == stress::Verdict::pass && written ? ExitCode::ok
                                                                : ExitCode::failed;
  if (report->abandoned) {  // a device thread is stuck in the runtime: no destructors, no exit handlers
    std::fflush(nullptr);
    std::_Exit(static_cast<int>(code));
  }
  return code;
}

}  // namespace

void setup_stress(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<StressArgs>();
  auto* sub = app.add_subcommand(
      "stress",
      "Load every device for a while and watch it: checked sustained GEMM, memory bandwidth and patterns, host "
      "transfers, power and clocks; a verdict and an action per device and check");
  sub->add_option("--level", a->level,
                  fmt::format("1 in seconds (health, a checked kernel); 2 in about {} (plus PCIe, HBM, GEMM); 3 in "
                              "about {} (plus memtest, sustained GEMM and power); 4 for hours (burn-in)",
                              util::format_duration(stress::level_duration(2)),
                              util::format_duration(stress::level_duration(3))))
      ->check(CLI::Range(1, 4));
  sub->add_option("--duration", a->duration_s, "Total time of the timed checks, overriding the level's (90, 20m, 4h)")
      ->transform(seconds_in(1, 7 * 86400));
  sub->add_option("--device", a->devices, "Device indices, e.g. 0,1 (default: all)")->delimiter(',');
  sub->add_option("--only", a->only, "Checks to run: health, kernel, gemm, hbm, memtest, pcie, power")->delimiter(',');
  sub->add_option("--precision", a->precision,
                  "The sustained GEMM's precision (default: the SKU's in data/stress.json, else the fastest): fp64, "
                  "fp32, tf32, bf16, fp16")
      ->check(CLI::IsMember({"fp64", "fp32", "tf32", "bf16", "fp16"}));
  sub->add_option("--backend", a->backend, "cpu, cuda or hip (default: the first GPU backend with a device, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda", "hip"}));
  sub->add_option("--sample-every", a->sample_every_s, "Telemetry interval (default 1s; 0 turns the watch off)")
      ->transform(seconds_in(0, 3600));
  sub->add_option("--call-timeout", a->call_timeout_s, "The most one device call may take (default 2m)")
      ->transform(seconds_in(1, 3600));
  add_source_options(sub, a->in, "");  // no --from: stress watches the live devices
  add_output(sub, a->json, "The verdicts, evidence and the telemetry series as JSON");
  add_output(sub, a->csv, "The telemetry series as CSV: a row per device per reading");
  add_output(sub, a->markdown, "The verdicts as Markdown");
  add_presentation(sub);
  sub->callback([a, &runner] { runner = [a] { return run_stress(*a); }; });
}

}  // namespace dcukit::cli
