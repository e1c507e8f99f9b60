// `dcukit port audit` and `dcukit port translate`: parsing and rendering only; the engine is
// src/port/ (port/port.h).
#include "cli/commands.h"

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "cli/common.h"
#include "cli/presentation.h"
#include "cli/output.h"
#include "port/port.h"
#include "port/render.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

struct PortOptions {
  std::vector<std::string> paths, ignore, hip_switches;
  Output json{"--json", ""}, markdown{"--markdown", ""};
  bool rules = false, no_annotate = false;
  std::string sarif, output, out_dir;
};

/// "dcukit port audit: ..." (cli::fail with the subcommand named after "port").
ExitCode port_fail(const char* command, ExitCode code, const std::string& message) {
  return fail(std::string("port ") + command, code, message);
}

ExitCode run_audit(const PortOptions& o) {
  if (o.rules) {
    fmt::print("{}", port::render_rules_text());
    return ExitCode::ok;
  }
  if (o.paths.empty())
    return port_fail("audit", ExitCode::bad_input,
                "pass one or more CUDA sources or folders (or --rules to list the rules)");
  const OutputFile sarif_file{"--sarif", o.sarif == "-" ? "" : o.sarif};
  if (Status s = check_outputs({sarif_file}); !s) return port_fail("audit", ExitCode::bad_input, s.message());
  if (Status s = check_outputs({o.json, o.markdown}); !s) return port_fail("audit", ExitCode::bad_input, s.message());
  if (o.sarif == "-" && o.json.to_stdout())
    return port_fail("audit", ExitCode::bad_input, "--sarif - and --json both write to stdout: give one a file");
  auto report = port::run({o.paths, o.ignore, o.hip_switches, command_line()});
  if (!report) return port_fail("audit", ExitCode::bad_input, report.error().message);
  if (o.sarif == "-") print_text(port::render_audit_sarif(*report));
  if (!sarif_file.path.empty() && !write_output("port audit", sarif_file, port::render_audit_sarif(*report)))
    return ExitCode::failed;
  for (const auto& f : report->files)  // -v: each file read
    print_verbose("port audit", fmt::format("{}: {} lines, {} kernels, {} launches, {} CUDA API references", f.path,
                                            f.lines, f.kernels, f.launches, f.cuda_api_refs));
  if (o.sarif != "-" && !o.json.to_stdout() && !o.markdown.to_stdout())
    print_report([&] { return port::render_text(*report); });
  if (!emit("port audit", o.json, util::json_document(port::to_json(*report)))) return ExitCode::failed;
  if (!emit("port audit", o.markdown, o.markdown.asked() ? port::render_markdown(*report) : std::string()))
    return ExitCode::failed;
  return report->count(port::Severity::error) > 0 ? ExitCode::failed : ExitCode::ok;
}

ExitCode run_translate(const PortOptions& o) {
  if (o.output.empty() == o.out_dir.empty())
    return port_fail("translate", ExitCode::bad_input, "pass exactly one of -o FILE (one input) and --out-dir DIR");
  port::TranslateRequest t;
  t.inputs = o.paths;
  t.output = o.output;
  t.out_dir = o.out_dir;
  t.ignore = o.ignore;
  t.hip_switches = o.hip_switches;
  t.annotate = !o.no_annotate;
  t.command = command_line();
  if (Status s = check_outputs({o.json}); !s) return port_fail("translate", ExitCode::bad_input, s.message());
  auto report = port::run(t);
  if (!report) return port_fail("translate", ExitCode::bad_input, report.error().message);
  for (const auto& f : report->files)  // -v: each file written
    print_verbose("port translate", fmt::format("{} -> {}: {} lines, {} names converted, {} left", f.input, f.output,
                                                f.lines, f.converted.size(), f.untranslated.size()));
  if (!o.json.to_stdout()) print_report([&] { return port::render_text(*report); });
  if (!emit("port translate", o.json, util::json_document(port::to_json(*report)))) return ExitCode::failed;
  for (const auto& f : report->files)
    if (!f.untranslated.empty()) return ExitCode::failed;
  return ExitCode::ok;
}

}  // namespace

void setup_port(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<PortOptions>();
  auto& o = *opts;
  auto* sub = app.add_subcommand("port",
                                 "Audit CUDA sources for HIP, 64-lane wavefronts and DCU; translate CUDA "
                                 "names to HIP");
  sub->require_subcommand(1);
  auto* audit = sub->add_subcommand("audit",
                                    "Report what breaks on HIP and DCU: 32-lane assumptions, PTX, "
                                    "__CUDA_ARCH__, APIs and libraries (exit 1 on an error finding)");
  audit->add_option("paths", o.paths, "CUDA sources (.cu .cuh .cpp .h .hpp) and folders holding them");
  add_output(audit, o.json, "The findings and statistics as JSON");
  add_output(audit, o.markdown, "The findings and statistics as Markdown tables");
  audit->add_option("--sarif", o.sarif, "Also write a SARIF 2.1.0 log to this file (- for standard output only)");
  audit->add_flag("--rules", o.rules, "List every rule with its explanation and fix");
  // One value an occurrence (or RULE,RULE), so that paths after these options stay paths.
  audit->add_option("--ignore", o.ignore, "Leave out a rule (repeatable, or RULE,RULE; a family: 'lib.*')")
      ->allow_extra_args(false)
      ->delimiter(',');
  audit
      ->add_option("--hip-define", o.hip_switches,
                   "A macro your HIP build defines, besides GGML_USE_HIP, USE_ROCM, USE_HIP, DCUKIT_HIP (repeatable)")
      ->allow_extra_args(false)
      ->delimiter(',');
  add_presentation(audit, "Say each file read");
  audit->callback([&runner, opts] { runner = [opts] { return run_audit(*opts); }; });

  auto* tr = sub->add_subcommand("translate",
                                 "Rename CUDA runtime, library and header names to HIP from dcukit's "
                                 "mapping table, as hipify-perl does, and mark the lines the audit flags");
  tr->add_option("inputs", o.paths, "CUDA sources and folders")->required();
  tr->add_option("-o,--output", o.output, "Where the translation of the one input goes");
  tr->add_option("--out-dir", o.out_dir, "Write each input under this folder, at its path relative to the inputs");
  tr->add_flag("--no-annotate", o.no_annotate, "Do not mark the lines audit rules flag");
  add_output(tr, o.json, "What was converted and left, per file, as JSON");
  tr->add_option("--ignore", o.ignore, "Do not mark this rule (repeatable)")->allow_extra_args(false)->delimiter(',');
  tr->add_option("--hip-define", o.hip_switches, "As for audit")->allow_extra_args(false)->delimiter(',');
  add_presentation(tr, "Say each file written");
  tr->callback([&runner, opts] { runner = [opts] { return run_translate(*opts); }; });
}

}  // namespace dcukit::cli
