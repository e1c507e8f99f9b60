// `dcukit guard [options] -- COMMAND ARGS...`: the flags come from guard's settings table
// (guard/settings.h), so that a flag, its options-file key and its help are one entry.
#include "cli/commands.h"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <map>
#include <memory>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "cli/settings.h"
#include "guard/guard.h"
#include "guard/render.h"
#include "guard/settings.h"
#include "telemetry/collector.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

struct GuardCliOptions {
  std::vector<std::string> command;
  SettingFlags settings;
  Output json{"--json", ""};
};

/// Reads one device's memory through telemetry (NVML, rocm_smi, sysfs or the vendor tools), each
/// reading within telemetry's deadline. One Collector serves every reading, so that a library is
/// loaded once.
guard::DeviceMemoryReader telemetry_memory_reader() {
  auto collector = std::make_shared<telemetry::Collector>(telemetry::CollectOptions{});
  return [collector](int index) -> Result<guard::DeviceMemory> {
    const telemetry::Snapshot snap = collector->sample();
    for (const auto& d : snap.devices) {
      if (d.index != index) continue;
      if (!d.memory_used_bytes)
        return Error{fmt::format("device {}: no telemetry source reports its memory use", index)};
      return guard::DeviceMemory{*d.memory_used_bytes, d.memory_total_bytes.value_or(0)};
    }
    return Error{fmt::format("device {}: telemetry lists {} device(s) and not this index; check --device", index,
                             snap.devices.size())};
  };
}

ExitCode run_guard(GuardCliOptions& c) {
  const guard::Pairs overrides = given_settings(guard::settings(), c.settings);
  auto options = guard::resolve_options(c.command, c.settings.config, overrides);
  if (!options) {
    print_error("guard", options.error().message);
    return ExitCode::bad_input;
  }
  if (c.json.to_stdout() && options->events_file.empty())
    return fail("guard", ExitCode::bad_input, "--json and the events both write to stdout: give one a file (--events FILE)");
  if (Status s = check_outputs({c.json}); !s) return fail("guard", ExitCode::bad_input, s.message());
  const auto& shown = presentation();
  guard::Request request{.options = *options,
                         .overrides = overrides,
                         .read_memory = {},
                         .detail = shown.quiet     ? guard::EventDetail::quiet
                                   : shown.verbose ? guard::EventDetail::verbose
                                                   : guard::EventDetail::normal,
                         .command = command_line()};
  if (options->device) request.read_memory = telemetry_memory_reader();
  auto report = guard::run(request);
  if (!report) {
    print_error("guard", report.error().message);
    return ExitCode::bad_input;
  }
  const bool written = emit("guard", c.json, util::json_document(guard::to_json(*report)));
  return report->stop_complete && written ? ExitCode::ok : ExitCode::failed;
}

}  // namespace

void setup_guard(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<GuardCliOptions>();
  auto* sub = app.add_subcommand(
      "guard",
      "Run an inference service and keep it alive: readiness then liveness probes (/health, /v1/models, a "
      "canary completion), complete stops, restarts with back-off, /healthz and /metrics for monitoring");
  sub->footer(
      "Write the service's command after --, e.g.\n"
      "  dcukit guard --model Qwen2-7B-Instruct -- bash ./launch_vllm.sh\n"
      "Options given here override those of --config FILE (NAME=VALUE lines or a JSON object, keys as the flags\n"
      "without --), which SIGHUP reads again. Events are JSON lines on standard output (or --events FILE).");
  add_settings(sub, guard::settings(), opts->settings, guard::Options{},
               "An options file (NAME=VALUE lines or JSON), read again on SIGHUP");
  add_output(sub, opts->json, "When guard stops: the restarts, the last state and whether the stop was complete");
  add_presentation(sub, "Also a probe_passed event for every probe that passed (-q: no probe_failed events)");
  sub->add_option("command", opts->command, "The service's command and its arguments (after --)");
  sub->callback([&runner, opts] { runner = [opts] { return run_guard(*opts); }; });
}

}  // namespace dcukit::cli
