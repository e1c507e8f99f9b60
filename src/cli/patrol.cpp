// `dcukit patrol`: parsing and rendering only; the engine is src/patrol/. Its exit codes are a
// Nagios plugin's (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), so bad input is 3 here, not 2:
// a monitoring system must never read a typo as CRITICAL.
#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "cli/sources.h"
#include "core/run_info.h"
#include "patrol/patrol.h"
#include "patrol/render.h"
#include "util/duration.h"
#include "util/json_text.h"
#include "util/net.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

struct PatrolFlags {
  patrol::Request options;
  std::vector<std::string> limits;
  std::string probe_timeout = "5s", canary_timeout = "30s";
  SourceFlags in;
  double max_canary_ms = 0, watch_s = 0;
  int expect_devices = 0;
  bool no_devices = false, no_canary = false;
  Output json{"--json", ""};
};

/// The report's JSON: one line an inspection with --watch (JSON Lines), else indented.
std::string document(const patrol::Report& r, bool one_line) {
  const auto out = patrol::to_json(r);
  return (one_line ? util::json_text(out) : util::json_text(out, 2)) + "\n";
}

ExitCode bad(const std::string& message) {
  print_error("patrol", message);
  return ExitCode::unknown;
}

/// Fills f.options from the flags that need parsing; an error message, or "".
std::string finish(PatrolFlags& f) {
  for (const auto& l : f.limits)
    if (auto st = f.options.thresholds.set(l); !st) return st.message();
  const std::pair<const char*, std::string*> durations[] = {{"--probe-timeout", &f.probe_timeout},
                                                             {"--canary-timeout", &f.canary_timeout}};
  std::chrono::milliseconds parsed[2];
  for (int i = 0; i < 2; ++i) {
    auto d = util::parse_duration(*durations[i].second);
    if (!d || d->count() <= 0)
      return fmt::format("{} {}: give a positive duration, e.g. 5s", durations[i].first, *durations[i].second);
    parsed[i] = *d;
  }
  f.options.service.probe_timeout = parsed[0];
  f.options.service.canary_timeout = parsed[1];
  const auto collect = collect_options(f.in);
  if (!collect) return collect.error().message;
  f.options.collect = *collect;
  f.options.from = f.in.from;
  if (f.max_canary_ms > 0) f.options.service.max_canary = std::chrono::milliseconds(static_cast<long>(f.max_canary_ms));
  if (f.expect_devices > 0) f.options.expect_devices = f.expect_devices;
  f.options.devices = !f.no_devices;
  f.options.command = command_line();
  f.options.service.canary = !f.no_canary;
  if (!f.options.service.url.empty())
    if (auto hp = util::url_host_port(f.options.service.url); !hp) return "--url " + hp.error().message;
  if (f.no_devices && f.options.service.url.empty() && f.options.service.pid_file.empty())
    return "--no-devices leaves nothing to inspect; give --url or --pid-file";
  return "";
}

ExitCode run_patrol(PatrolFlags f) {
  if (const auto err = finish(f); !err.empty()) return bad(err);
  if (Status s = check_outputs({f.json.file()}); !s) return bad(s.message());
  // With --watch, a --json FILE grows one line (JSON Lines) an inspection; once, it is written whole.
  std::optional<OutputStream> lines;
  if (f.watch_s > 0) lines.emplace(f.json);
  auto& stop = util::StopToken::process();
  const auto interval = std::chrono::milliseconds(static_cast<long>(f.watch_s * 1000));
  patrol::State last = patrol::State::unknown;
  while (true) {
    const auto inspected = patrol::run(f.options);
    if (!inspected) return bad(inspected.error().message);
    const patrol::Report& report = *inspected;
    last = report.state;
    if (!f.json.to_stdout()) print_text(patrol::render_nagios(report, presentation().verbose));  // Nagios' lines: never wrapped
    const std::string json = document(report, f.watch_s > 0);
    if (!(lines ? lines->put("patrol", json) : emit("patrol", f.json, json))) return ExitCode::unknown;
    std::fflush(stdout);
    if (f.watch_s <= 0 || stop.wait_for(interval)) break;
  }
  return static_cast<ExitCode>(static_cast<int>(last));
}

}  // namespace

void setup_patrol(CLI::App& app, Runner& runner) {
  auto f = std::make_shared<PatrolFlags>();
  auto* sub = app.add_subcommand("patrol",
                                 "One inspection of the devices, the inference service and what crashed runs left "
                                 "behind, as a Nagios check (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)");
  sub->add_option("--url", f->options.service.url,
                  "The service's base URL: /health, /v1/models and one small completion (the canary) are probed");
  sub->add_option("--pid-file", f->options.service.pid_file, "A file holding the service's pid: is it running?");
  sub->add_option("--model", f->options.service.model, "The model /v1/models must list (default: the first listed)");
  sub->add_option("--header", f->options.service.headers,
                  "An HTTP header for the probes, \"Name: value\" (repeatable)");
  sub->add_option("--max-canary-ms", f->max_canary_ms, "A canary slower than this is WARNING")
      ->check(number_in(1, 1e9));
  sub->add_flag("--no-canary", f->no_canary, "Do not send the canary completion");
  sub->add_option("--probe-timeout", f->probe_timeout, "Deadline of /health and /v1/models (default 5s)");
  sub->add_option("--canary-timeout", f->canary_timeout, "A canary that takes longer is CRITICAL (default 30s)");
  sub->add_option("--limit", f->limits,
                  "Override a device limit for every device: KEY=WARN,CRIT, KEY=WARN, KEY=,CRIT or KEY=off, each "
                  "a Nagios range (80: above 80; 10: below 10; 10:20 outside; @10:20 inside); keys: "
                  "temperature (C), power (% of cap), memory (% used), busy (%), ecc-corrected, ecc-uncorrected, "
                  "residue-memory (MiB in use with no process), pcie=on|off (repeatable)");
  sub->add_option("--expect-devices", f->expect_devices, "Fewer devices than N is CRITICAL")->check(number_in(1, 4096));
  sub->add_flag("--no-devices", f->no_devices, "Inspect the service only");
  add_source_options(sub, f->in,
                     "Judge the devices of a captured hy-smi, rocm-smi, amd-smi or nvidia-smi output instead of this "
                     "host's (process residue is then not read from /proc)");
  add_output(sub, f->json, "The report as JSON (JSON Lines with --watch)");
  add_presentation(sub, "After the summary line, one line per check");
  sub->add_option("--watch", f->watch_s, "Inspect again at this interval (60, 1m) until SIGINT or SIGTERM")
      ->transform(seconds_in(0.1, 86400));
  sub->callback([f, &runner] { runner = [f] { return run_patrol(*f); }; });
}

}  // namespace dcukit::cli
