// `dcukit telemetry`: what every device is doing, live or from a captured tool output. Parsing
// and rendering only; the engine is src/telemetry/.
#include "cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "cli/sources.h"
#include "telemetry/run.h"
#include "core/run_info.h"
#include "telemetry/capture.h"
#include "telemetry/collector.h"
#include "telemetry/render.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

struct TelemetryOptions {
  Output json{"--json", ""}, csv{"--csv", ""};
  double watch_s = 0;
  int count = 0;
  SourceFlags in;
};

/// The JSON of one reading: run_info first, as every JSON report of dcukit starts.
nlohmann::ordered_json document(const telemetry::Snapshot& s) {
  static const core::RunInfo info = core::collect_run_info("dcukit telemetry", command_line());
  return telemetry::to_json(info, s);
}

/// Where the readings go: the text table on stdout unless --json or --csv takes stdout; each of
/// those to stdout or its file. Watching, the files grow a line (JSON Lines) or rows a reading.
class Sink {
public:
  explicit Sink(const TelemetryOptions& o) : m_o(o), m_json(o.json), m_csv(o.csv) {}
  /// False when a file could not be written (said on stderr).
  bool put(const telemetry::Snapshot& s, bool first, bool watching, bool redraw) {
    const std::string warnings = telemetry::render_warnings(s);
    if (!warnings.empty() && !presentation().quiet) fmt::print(stderr, "{}", util::terminal_safe(warnings));
    if (first)  // -v: what each source said, once
      for (const auto& src : s.sources)
        print_verbose("telemetry", fmt::format("source {}: {}{}", src.name, telemetry::to_string(src.state),
                                               src.detail.empty() ? "" : " (" + src.detail + ")"));
    if (!m_o.json.to_stdout() && !m_o.csv.to_stdout()) {
      if (redraw)
        fmt::print("\x1b[H\x1b[2J");
      else if (!first)
        fmt::print("\n");
      print_report([&] { return telemetry::render_text(s); });
    }
    bool ok = true;
    if (m_o.json.asked())
      ok = m_json.put("telemetry", (watching ? util::json_text(document(s)) : util::json_text(document(s), 2)) +
                                       "\n");
    if (m_o.csv.asked()) {
      const std::string csv = telemetry::render_csv(s, first);
      ok = m_csv.put("telemetry", m_o.csv.to_stdout() ? util::terminal_safe(csv) : csv) && ok;  // a terminal's, escaped
    }
    std::fflush(stdout);
    return ok;
  }

private:
  const TelemetryOptions& m_o;
  OutputStream m_json, m_csv;
};

ExitCode run_telemetry(const TelemetryOptions& o) {
  if (Status s = check_outputs({o.json, o.csv}); !s)
    return fail("telemetry", ExitCode::bad_input, s.message());
  const auto collect = collect_options(o.in);
  if (!collect) return fail("telemetry", ExitCode::bad_input, collect.error().message);
  telemetry::Request r;
  r.collect = *collect;
  r.from = o.in.from;
  r.every = std::chrono::milliseconds(std::llround(o.watch_s * 1000));
  r.count = o.count;
  r.stop = &util::StopToken::process();
  const bool watching = o.watch_s > 0 || o.count > 1;
  const bool redraw = watching && !o.json.to_stdout() && !o.csv.to_stdout() && ::isatty(STDOUT_FILENO);
  Sink sink(o);
  r.on_reading = [&](const telemetry::Snapshot& s, bool first) { return sink.put(s, first, watching, redraw); };
  const auto report = telemetry::run(r);
  if (!report) return fail("telemetry", ExitCode::bad_input, report.error().message);
  if (!report->any_device && o.in.from.empty())
    return fail("telemetry", ExitCode::failed, "no GPU found; the report says what each source found");
  return report->written ? ExitCode::ok : ExitCode::failed;
}

}  // namespace

void setup_telemetry(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<TelemetryOptions>();
  auto* sub = app.add_subcommand("telemetry",
                                 "What every device is doing (temperature, power, busy, memory, clocks, "
                                 "PCIe link, ECC, processes), live or from a captured tool output");
  add_output(sub, opts->json, "One JSON object a reading (JSON Lines with --watch)");
  add_output(sub, opts->csv, "CSV: a row per device per reading, with a timestamp, for plotting");
  add_presentation(sub, "Say what each telemetry source found");
  sub->add_option("--watch", opts->watch_s, "Read again at this interval (1, 500ms), like `watch hy-smi`; Ctrl-C stops")
      ->transform(seconds_in(0.01, 86400));
  sub->add_option("--count", opts->count, "Stop after N readings (with --watch; alone, one a second)")
      ->check(whole_in(1, 1'000'000'000));
  add_source_options(sub, opts->in,
                     "Read a captured output of hy-smi, rocm-smi, amd-smi, nvidia-smi, rocminfo, dcgmi, rvs, lspci ... "
                     "instead of this host; the format is detected");
  sub->callback([opts, &runner] { runner = [opts] { return run_telemetry(*opts); }; });
}

}  // namespace dcukit::cli
