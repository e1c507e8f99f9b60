// `dcukit up`: parsing and exit codes; the steps are src/flows/up*.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output.h"
#include "flows/up.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

constexpr const char* kUp = "up";

struct UpArgs {
  flows::UpRequest request;
  std::string engine = "vllm", from = "doctor", startup = "20m";
  std::vector<std::string> command;
  Output json{"--json", ""};
};

ExitCode run_up(UpArgs& a) {
  auto& r = a.request;
  if (Status s = flows::set_engine(r, a.engine, a.command, a.startup); !s)
    return fail(kUp, ExitCode::bad_input, s.message());
  const auto from = flows::parse_up_step(a.from);
  if (!from)
    return fail(kUp, ExitCode::bad_input,
                fmt::format("--from {}: choose doctor, prove, plan, serve, smoke, sweep or report", a.from));
  r.from = *from;
  if (Status s = check_outputs({a.json}); !s) return fail(kUp, ExitCode::bad_input, s.message());
  if (Status s = flows::check_up(r); !s) return fail(kUp, ExitCode::bad_input, s.message());
  r.self = self_path();
  r.stop = &util::StopToken::process();
  r.say = [](const std::string& line) { std::fprintf(stderr, "dcukit up: %s\n", line.c_str()); };
  const auto report = flows::run_up(r);
  const std::string json = flows::render_json(report);
  std::FILE* f = std::fopen((std::filesystem::path(r.out) / "up.json").c_str(), "w");
  if (f) {
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  if (!a.json.to_stdout()) std::fputs(flows::render_text(report).c_str(), stdout);
  std::fflush(stdout);
  const bool written = emit(kUp, a.json, a.json.asked() ? json : std::string());
  if (report.interrupted) return ExitCode::interrupted;
  if (!report.ok()) return ExitCode::failed;
  return written ? ExitCode::ok : ExitCode::failed;
}

}  // namespace

void setup_up(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<UpArgs>();
  auto* sub = app.add_subcommand(
      "up", "Bring a model into service in one command: doctor, the card proved, plan, the engine under guard, a "
            "smoke test, a load sweep, the report");
  sub->footer(
      "Each step is a dcukit command run with a deadline, its JSON kept in --out. A failed step stops the run with its "
      "finding (what earlier steps wrote is kept; --from STEP resumes). Once served it stays under guard until Ctrl-C, "
      "which stops the engine completely; --detach leaves guard running (its pid in OUT/guard.pid). Exit status: 0 "
      "served and stopped (or detached); 1 a step failed; 2 bad input, before anything starts; 130 interrupted.");
  sub->add_option("--model", a->request.model, "The model's folder (vLLM, SGLang) or file (llama.cpp's GGUF)");
  sub->add_option("--engine", a->engine, "vllm, sglang or llama.cpp (default vllm); or the command after --");
  sub->add_option("--gpu", a->request.gpu, "The cards, for plan (vLLM): as plan's --gpu");
  sub->add_option("--slo", a->request.slo, "The sweep's SLO, as load's: ttft=MS,tpot=MS,e2el=MS");
  sub->add_option("--out", a->request.out, "Where every step's JSON, logs and the report go (default dcukit-up)");
  sub->add_option("--host", a->request.host, "The address the engine listens on (default 127.0.0.1)");
  sub->add_option("--port", a->request.port, "The engine's port (default 8000)")->check(CLI::Range(1, 65535));
  sub->add_option("--listen", a->request.listen, "Where guard serves /healthz and /metrics (default 127.0.0.1:9401)");
  sub->add_option("--startup-timeout", a->startup, "How long the engine may take to become ready (default 20m)");
  sub->add_option("--from", a->from, "Resume at this step: doctor, prove, plan, serve, smoke, sweep, report");
  sub->add_flag("--force", a->request.force, "Go on past a failed doctor finding or stress check");
  sub->add_flag("--detach", a->request.detach, "Leave guard running when done (OUT/guard.pid)");
  add_output(sub, a->json, "Every step with its outcome, detail, file and time");
  sub->add_option("command", a->command, "The server's command line (after --), instead of --engine");
  sub->callback([a, &runner] { runner = [a] { return run_up(*a); }; });
}

}  // namespace dcukit::cli
