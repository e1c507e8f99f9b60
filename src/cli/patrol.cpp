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
#include "cli/settings.h"
#include "cli/sources.h"
#include "core/run_info.h"
#include "patrol/patrol.h"
#include "patrol/settings.h"
#include "patrol/render.h"
#include "util/duration.h"
#include "util/json_text.h"
#include "util/net.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

struct PatrolFlags {
  patrol::Request options;
  SettingFlags settings;
  SourceFlags in;
  double watch_s = 0;
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

/// Fills f.options from the settings table and the source flags; an error message, or "".
std::string finish(PatrolFlags& f) {
  const auto collect = collect_options(f.in);
  if (!collect) return collect.error().message;
  patrol::Request defaults;
  defaults.collect = *collect;
  defaults.from = f.in.from;
  defaults.command = command_line();
  auto resolved = patrol::resolve_request(defaults, f.settings.config, given_settings(patrol::settings(), f.settings));
  if (!resolved) return resolved.error().message;
  f.options = std::move(*resolved);
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
  add_settings(sub, patrol::settings(), f->settings, patrol::Request{},
               "An options file (NAME=VALUE lines or JSON) with the settings above, e.g. for NRPE");
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
