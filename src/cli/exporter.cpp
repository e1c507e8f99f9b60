// `dcukit exporter`: parsing only; the engine is src/exporter/.
#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "cli/settings.h"
#include "cli/sources.h"
#include "exporter/exporter.h"
#include "exporter/render.h"
#include "exporter/settings.h"
#include "patrol/thresholds.h"
#include "patrol/types.h"
#include "util/duration.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

struct ExporterFlags {
  SettingFlags settings;
  SourceFlags in{.timeout_s = 2};
  Output json{"--json", ""};
};


ExitCode run_exporter(ExporterFlags f) {
  const auto collect = collect_options(f.in);
  if (!collect) return fail("exporter", ExitCode::bad_input, collect.error().message);
  exporter::Request defaults;
  defaults.from = f.in.from;
  defaults.collect = *collect;
  defaults.command = command_line();
  auto request = exporter::resolve_request(defaults, f.settings.config, given_settings(exporter::settings(), f.settings));
  if (!request) return fail("exporter", ExitCode::bad_input, request.error().message);
  if (Status s = check_outputs({f.json}); !s) return fail("exporter", ExitCode::bad_input, s.message());
  exporter::Request& o = *request;
  o.log = [](const std::string& line) { print_note("exporter", line); };
  o.log_scrapes = presentation().verbose;
  // dcukit_gpu_health: patrol's judgment of each device's figures, with its default limits.
  o.health = [](const telemetry::DeviceState& d) {
    patrol::Report r;
    patrol::check_device(d, patrol::Thresholds{}, r);
    return r.state == patrol::State::unknown ? -1 : static_cast<int>(r.state);
  };
  o.stop = &util::StopToken::process();
  o.on_listening = [](const std::string& address) {
    print_note("exporter", fmt::format("serving http://{}/metrics", address));
    std::fflush(stderr);
  };
  const auto st = exporter::run(o);
  // run's only error is an address that cannot be bound (in use, not this host's, privileged):
  // the input to change, so exit 2 like every other bad flag.
  if (!st) return fail("exporter", ExitCode::bad_input, st.error().message);
  return emit("exporter", f.json, util::json_document(exporter::to_json(*st))) ? ExitCode::ok : ExitCode::failed;
}

}  // namespace

void setup_exporter(CLI::App& app, Runner& runner) {
  auto f = std::make_shared<ExporterFlags>();
  auto* sub = app.add_subcommand("exporter",
                                 "Serve device metrics (temperature, power, busy, memory, clocks, PCIe link, ECC) "
                                 "for Prometheus, read fresh on each scrape");
  add_settings(sub, exporter::settings(), f->settings, exporter::Request{},
               "An options file (NAME=VALUE lines or JSON) with the settings above");
  add_source_options(sub, f->in,
                     "Serve the figures of a captured hy-smi, rocm-smi, amd-smi or nvidia-smi output (read again on "
                     "each scrape) instead of this host's");
  add_output(sub, f->json, "When the exporter stops: where it served and how many scrapes");
  add_presentation(sub, "A line for every scrape");
  sub->callback([f, &runner] { runner = [f] { return run_exporter(*f); }; });
}

}  // namespace dcukit::cli
