// `dcukit report FILES|DIR...`: parsing and exit codes; the engine is src/flows/report.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output.h"
#include "flows/report.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

constexpr const char* kReport = "report";

struct ReportArgs {
  std::vector<std::string> inputs;
  Output html{"-o", "report.html"}, markdown{"--markdown", ""}, json{"--json", ""};
  std::string command;
};

ExitCode run_report(const ReportArgs& a) {
  if (Status s = check_outputs({a.html, a.markdown, a.json}); !s) return fail(kReport, ExitCode::bad_input, s.message());
  auto doc = flows::build_report(a.inputs, core::collect_run_info("dcukit report", a.command));
  if (!doc) return fail(kReport, ExitCode::bad_input, doc.error().message);
  bool written = emit(kReport, a.html, flows::render_html(*doc));
  written = emit(kReport, a.markdown, a.markdown.asked() ? flows::render_markdown(*doc) : std::string()) && written;
  written = emit(kReport, a.json, a.json.asked() ? util::json_document(flows::to_json(*doc)) : std::string()) && written;
  if (!written) return ExitCode::failed;
  if (!a.html.to_stdout()) {
    std::size_t charts = 0;
    for (const auto& s : doc->sections) charts += s.charts.size();
    for (const auto& c : doc->fleet_charts) (void)c, ++charts;
    std::fprintf(stderr, "dcukit report: %zu result(s), %zu chart(s) -> %s\n", doc->files.size(), charts,
                 a.html.path.c_str());
  }
  return ExitCode::ok;
}

}  // namespace

void setup_report(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand(
      "report", "One page from dcukit results (bench, plan, load, doctor, telemetry, stress, a fleet's folder): "
                "tables, charts, and every figure against what its card should measure");
  sub->footer(
      "Reads the --json output of any dcukit command, and folders of them (recursively: one host's results or a "
      "fleet's). Writes one self-contained HTML file (inline SVG charts, no script, no request: it opens offline), "
      "Markdown with the same tables, and the merged JSON. Exit status: 0 written; 1 an output could not be written; "
      "2 an input is missing or not a dcukit result.");
  sub->add_option("inputs", a->inputs, "Result JSON files or folders of them")->required();
  sub->add_option("-o,--output", a->html.path, "The HTML file (default report.html; - for stdout)");
  add_output(sub, a->markdown, "The same tables as Markdown");
  add_output(sub, a->json, "The merged JSON: every result as read, its placements, the fleet table");
  sub->callback([a, &runner] {
    a->command = command_line();
    runner = [a] { return run_report(*a); };
  });
}

}  // namespace dcukit::cli
