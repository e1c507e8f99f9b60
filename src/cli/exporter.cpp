// `dcukit exporter`: parsing only; the engine is src/exporter/.
#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "cli/sources.h"
#include "exporter/exporter.h"
#include "exporter/render.h"
#include "util/duration.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

struct ExporterFlags {
  exporter::Request options;
  std::string deadline = "8s", names = "dcukit";
  SourceFlags in{.timeout_s = 2};
  Output json{"--json", ""};
};


ExitCode run_exporter(ExporterFlags f) {
  auto deadline = util::parse_duration(f.deadline);
  if (!deadline) return fail("exporter", ExitCode::bad_input, "--deadline: " + deadline.error().message);
  const auto collect = collect_options(f.in);
  if (!collect) return fail("exporter", ExitCode::bad_input, collect.error().message);
  f.options.names = *exporter::parse_name_set(f.names);  // CLI11 checked it
  f.options.deadline = *deadline;
  f.options.from = f.in.from;
  f.options.collect = *collect;
  if (auto st = exporter::validate(f.options); !st) return fail("exporter", ExitCode::bad_input, st.message());
  if (Status s = check_outputs({f.json}); !s) return fail("exporter", ExitCode::bad_input, s.message());
  f.options.command = command_line();
  f.options.log = [](const std::string& line) { print_note("exporter", line); };
  f.options.log_scrapes = presentation().verbose;
  f.options.stop = &util::StopToken::process();
  f.options.on_listening = [](const std::string& address) {
    print_note("exporter", fmt::format("serving http://{}/metrics", address));
    std::fflush(stderr);
  };
  const auto st = exporter::run(f.options);
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
  sub->add_option("--listen", f->options.listen,
                  "ADDR:PORT to serve /metrics on (default 127.0.0.1:9402; 9400 is dcgm-exporter's, 9401 guard's; port 0: any)");
  sub->add_flag("--listen-any", f->options.listen_any, "Allow --listen on an address other hosts can reach");
  add_source_options(sub, f->in,
                     "Serve the figures of a captured hy-smi, rocm-smi, amd-smi or nvidia-smi output (read again on "
                     "each scrape) instead of this host's");
  sub->add_option("--deadline", f->deadline,
                  "The most a scrape waits for its device reading (default 8s, under Prometheus' 10s timeout)");
  sub->add_option("--names", f->names,
                  "Series names and labels: dcukit (dcukit_gpu_*), dcgm (dcgm-exporter's DCGM_FI_DEV_*) or amd "
                  "(AMD device-metrics-exporter's gpu_*), so that their Grafana dashboards work unchanged")
      ->check(CLI::IsMember({"dcukit", "dcgm", "amd"}))
      ->capture_default_str();
  sub->add_option("--cluster-name", f->options.cluster,
                  "The cluster_name label of --names amd (AMD's dashboards select on it)")
      ->capture_default_str();
  add_output(sub, f->json, "When the exporter stops: where it served and how many scrapes");
  add_presentation(sub, "A line for every scrape");
  sub->callback([f, &runner] { runner = [f] { return run_exporter(*f); }; });
}

}  // namespace dcukit::cli
