// `dcukit doctor`: what is wrong with this host, each finding with its evidence and fix; a
// support bundle of it; or the checks run again on a bundle. Parsing and rendering only: the
// engine is doctor::run.
#include "cli/commands.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "doctor/context.h"
#include "doctor/render.h"
#include "doctor/run.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

constexpr const char* kDoctor = "doctor";

struct DoctorOptions {
  Output json{"--json", ""};
  bool no_python = false, no_smoke = false, quick = false;
  std::string root, python, bundle, from_bundle, from;
  double python_timeout = 60, smoke_timeout = 60, tool_timeout = 20;
};

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

ExitCode finish(const DoctorOptions& o, const doctor::Report& report) {
  if (!o.json.to_stdout()) print_report([&] { return doctor::render_text(report, presentation().verbose); });
  const bool written = emit(kDoctor, o.json, util::json_document(doctor::to_json(report)));
  std::fflush(stdout);
  const ExitCode code = report.has_problems() || !written ? ExitCode::failed : ExitCode::ok;
  // A device call is still stuck in the driver: unwinding would wait on it, so leave now.
  if (report.device_hung) std::_Exit(static_cast<int>(code));
  return code;
}

ExitCode run_doctor(const DoctorOptions& o) {
  std::error_code ec;
  if (Status s = check_outputs({{"--bundle", o.bundle}, o.json.file()}); !s)
    return fail(kDoctor, ExitCode::bad_input, s.message());
  doctor::Request r;
  r.command = command_line();
  r.root = o.root.empty() ? "/" : std::filesystem::absolute(o.root, ec).string();
  r.env = doctor::live_environment();
  r.python = o.python;
  r.python_probe = !o.no_python && (!o.quick || !o.python.empty());  // --python asks for the probe
  r.smoke = !(o.no_smoke || o.quick);
  if (o.quick) r.telemetry_timeout = std::chrono::milliseconds(800);
  r.python_timeout = ms(o.python_timeout);
  r.smoke_timeout = ms(o.smoke_timeout);
  r.tool_timeout = ms(o.tool_timeout);
  r.bundle = o.bundle;
  r.from_bundle = o.from_bundle;
  r.from = o.from;
  r.progress = &progress();
  auto report = doctor::run(r);
  progress().close();
  if (!report) return fail(kDoctor, ExitCode::bad_input, report.error().message);
  if (const auto& b = report->bundle) {
    if (b->error.empty())
      print_note(kDoctor, fmt::format("wrote {} ({} files; {})", b->path, b->files, fmt::join(b->tools, "; ")));
    else
      print_error(kDoctor, b->error);
  }
  return finish(o, *report);
}

}  // namespace

void setup_doctor(CLI::App& app, Runner& runner) {
  auto opts = std::make_shared<DoctorOptions>();
  auto& o = *opts;
  auto* sub = app.add_subcommand("doctor",
                                 "What is wrong with this host for GPU inference: driver, toolkits, Python stack, "
                                 "devices, NUMA placement, leftovers; each finding with its evidence and fix "
                                 "(exit 1 on a warning or failure)");
  add_output(sub, o.json, "The findings as JSON");
  add_presentation(sub, "Show the evidence of every finding, not only of the problems");
  sub->add_option("--root", o.root,
                  "Read /sys, /proc, /dev, /opt, /etc and /usr/local under this folder (a fake host)");
  sub->add_option("--python", o.python, "The serving environment's Python (default: python3 on PATH)");
  sub->add_flag("--no-python", o.no_python, "Do not run the Python probe");
  sub->add_flag("--no-smoke", o.no_smoke, "Do not run the smoke test on the devices");
  sub->add_flag("--quick", o.quick,
                "Neither the Python probe (unless --python names one) nor the smoke test (under 2 s)");
  sub->add_option("--bundle", o.bundle,
                  "Also write a support bundle (.tar.gz): the report, the files read, the vendor tools' outputs, "
                  "pip list, the environment without secrets");
  sub->add_option("--from-bundle", o.from_bundle, "Run the checks that can run offline on a bundle");
  sub->add_option("--from", o.from,
                  "Check a pasted collect_env (`python -m torch.utils.collect_env` or vLLM's collect_env.py) "
                  "instead of this host: torch's build, vLLM's against it, nvcc, cuDNN, the driver");
  sub->add_option("--python-timeout", o.python_timeout, "How long the Python probe may take (default 60s)")
      ->transform(seconds_in(1, 3600));
  sub->add_option("--smoke-timeout", o.smoke_timeout, "How long the smoke test may take (default 60s)")
      ->transform(seconds_in(1, 3600));
  sub->add_option("--tool-timeout", o.tool_timeout, "How long each vendor tool may take in --bundle (default 20s)")
      ->transform(seconds_in(1, 600));
  sub->callback([opts, &runner] { runner = [opts] { return run_doctor(*opts); }; });
}

}  // namespace dcukit::cli
