// `dcukit tune`: parsing and exit codes; the search is src/flows/tune.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output.h"
#include "flows/tune.h"
#include "util/duration.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

constexpr const char* kTune = "tune";

struct TuneArgs {
  flows::TuneRequest request;
  std::string engine = "vllm", startup = "20m", budget = "30m";
  std::vector<std::string> grid, command;
  std::optional<double> utilization_from;
  Output json{"--json", ""};
};

ExitCode run_tune(TuneArgs& a) {
  auto& r = a.request;
  if (Status s = flows::set_engine(r.base, a.engine, a.command, a.startup); !s)
    return fail(kTune, ExitCode::bad_input, s.message());
  for (const auto& g : a.grid) {
    const auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size())
      return fail(kTune, ExitCode::bad_input, fmt::format("--grid {}: give NAME=V1,V2,... (each becomes --NAME V)", g));
    std::vector<std::string> values;
    std::string rest = g.substr(eq + 1), v;
    for (std::size_t i = 0; i <= rest.size(); ++i) {
      if (i == rest.size() || rest[i] == ',') {
        if (v.empty()) return fail(kTune, ExitCode::bad_input, fmt::format("--grid {}: an empty value", g));
        values.push_back(v);
        v.clear();
      } else {
        v += rest[i];
      }
    }
    std::string name = g.substr(0, eq);
    while (!name.empty() && name.front() == '-') name.erase(0, 1);
    r.grid.emplace_back(name, values);
  }
  bool grid_has_utilization = false;
  for (const auto& [name, values] : r.grid) grid_has_utilization = grid_has_utilization || name == "gpu-memory-utilization";
  if (a.utilization_from && *a.utilization_from > 0 && grid_has_utilization)
    return fail(kTune, ExitCode::bad_input,
                "--utilization-from and --grid gpu-memory-utilization=...: give one (the probe, or the values to try)");
  // seed 004: no more than 0.95 of a DCU's memory; the probe goes down from there
  r.utilization_from = a.utilization_from ? *a.utilization_from
                                          : (r.base.engine == flows::Engine::vllm && !grid_has_utilization ? 0.95 : 0.0);
  const auto budget = util::parse_duration(a.budget);
  if (!budget) return fail(kTune, ExitCode::bad_input, fmt::format("--budget {}: {}", a.budget, budget.error().message));
  r.budget = *budget;
  if (Status s = check_outputs({a.json}); !s) return fail(kTune, ExitCode::bad_input, s.message());
  if (Status s = flows::check_tune(r); !s) return fail(kTune, ExitCode::bad_input, s.message());
  r.base.self = self_path();
  r.base.stop = &util::StopToken::process();
  r.base.say = [](const std::string& line) { std::fprintf(stderr, "dcukit tune: %s\n", line.c_str()); };
  const auto report = flows::run_tune(r);
  const std::string json = flows::render_json(report);
  if (std::FILE* f = std::fopen((std::filesystem::path(r.base.out) / "tune.json").c_str(), "w")) {
    std::fputs(json.c_str(), f);
    std::fclose(f);
  }
  if (!a.json.to_stdout()) std::fputs(flows::render_text(report).c_str(), stdout);
  std::fflush(stdout);
  const bool written = emit(kTune, a.json, a.json.asked() ? json : std::string());
  if (report.interrupted) return ExitCode::interrupted;
  if (report.best < 0 || !written) return ExitCode::failed;
  return ExitCode::ok;
}

}  // namespace

void setup_tune(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<TuneArgs>();
  a->request.base.out = "dcukit-tune";
  auto* sub = app.add_subcommand(
      "tune", "Find the engine settings that serve the most requests a second within an SLO (each setting started "
              "under guard, a bracketing search with load)");
  sub->footer(
      "Default grids: vllm --max-num-seqs 64,128,256 x --max-num-batched-tokens 2048,8192, after a probe of "
      "--gpu-memory-utilization from 0.95 down (0.05 a step) until the engine starts with the grid's first setting; "
      "sglang --max-running-requests 64,128,256; llama.cpp --parallel 1,2,4,8 x --ctx-size 4096,8192. A setting the "
      "engine refuses (never ready, out of memory) is rejected with why; so is one that fills a card's memory past "
      "--memory-limit under load, before it runs out. Writes OUT/tune.json, OUT/tune.jsonl (one line a finished setting: a "
      "second run with the same --out goes on from it) and OUT/best.sh. Exit status: 0 a setting met the SLO; 1 none "
      "did; 2 bad input, before anything starts; 130 interrupted.");
  sub->add_option("--model", a->request.base.model, "The model's folder (vLLM, SGLang) or file (llama.cpp's GGUF)");
  sub->add_option("--engine", a->engine, "vllm, sglang or llama.cpp (default vllm); or the command after --");
  sub->add_option("--slo", a->request.slo, "The SLO, as load's: ttft=MS,tpot=MS,e2el=MS")->required();
  sub->add_option("--grid", a->grid, "NAME=V1,V2: the values of one engine flag (--NAME V); repeat for a grid");
  sub->add_option("--attain", a->request.attain, "The share of requests that must meet the SLO (default 0.95)")
      ->check(CLI::Range(0.01, 1.0));
  sub->add_option("--budget", a->budget, "Stop with the best so far after this long (default 30m)");
  sub->add_option("--requests", a->request.requests, "Requests a probe sends, at least (default 16)")
      ->check(CLI::Range(2, 100000));
  sub->add_option("--max-rate", a->request.max_rate, "The highest request rate tried (default 64/s)")
      ->check(CLI::Range(0.01, 1e6));
  sub->add_option("--memory-limit", a->request.memory_limit,
                  "Reject a setting once a card's memory use passes this share under load (default 0.98; 0: not "
                  "watched). The cards: those CUDA_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES name, else all")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--memory-from", a->request.memory_from,
                  "Read the cards' memory from this file at each sample (a vendor tool's latest output, as telemetry "
                  "--from reads it) instead of the live sources");
  sub->add_option("--utilization-from", a->utilization_from,
                  "Probe vLLM's --gpu-memory-utilization downward from this until the engine starts (default 0.95 "
                  "for vllm; 0: no probe)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--out", a->request.base.out, "Where each setting's logs and load results go (default dcukit-tune)");
  sub->add_option("--host", a->request.base.host, "The address the engine listens on (default 127.0.0.1)");
  sub->add_option("--port", a->request.base.port, "The engine's port (default 8000)")->check(CLI::Range(1, 65535));
  sub->add_option("--listen", a->request.base.listen, "Where guard serves /healthz (default 127.0.0.1:9401)");
  sub->add_option("--startup-timeout", a->startup, "How long one setting may take to become ready (default 20m)");
  add_output(sub, a->json, "Every setting with its probes, the best, the script");
  sub->add_option("command", a->command, "The server's command line (after --), instead of --engine");
  sub->callback([a, &runner] { runner = [a] { return run_tune(*a); }; });
}

}  // namespace dcukit::cli
