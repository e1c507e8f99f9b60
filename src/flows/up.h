#pragma once
// `dcukit up`: a model brought into service in one command, each step a dcukit command run as a
// child with a deadline, its JSON kept in the output folder: doctor, the card proved (stress
// level 1), the plan and launch script (vLLM), the engine started under `dcukit guard`, a smoke
// test whose answers are checked, a short load sweep against the SLO, and the report. A failed
// step stops the run with that step's finding; what earlier steps wrote is kept, and `--from`
// resumes at a step.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/run_info.h"
#include "util/process.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::flows {

enum class UpStep { doctor, prove, plan, serve, smoke, sweep, report };
std::string_view to_string(UpStep s);
std::optional<UpStep> parse_up_step(std::string_view s);
inline constexpr UpStep kUpSteps[] = {UpStep::doctor, UpStep::prove, UpStep::plan,
                                      UpStep::serve,  UpStep::smoke, UpStep::sweep, UpStep::report};

enum class Engine { vllm, sglang, llama_cpp, command };
std::string_view to_string(Engine e);
std::optional<Engine> parse_engine(std::string_view s);

struct UpRequest {
  std::string self;   ///< the dcukit binary each step runs
  std::string model;  ///< the model's folder or file
  Engine engine = Engine::vllm;
  std::vector<std::string> command;  ///< Engine::command: what to run
  std::string gpu;                   ///< plan's --gpu (vLLM)
  std::string slo;                   ///< load's --slo: "ttft=500,tpot=50"
  std::string out = "dcukit-up";
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string listen = "127.0.0.1:9401";  ///< guard's /healthz
  std::chrono::milliseconds startup_timeout{20 * 60 * 1000};
  std::optional<int> max_restarts;  ///< guard's --max-restarts (tune: 0, a setting that crashes is rejected)
  bool force = false;   ///< go on past a failed doctor finding or stress check
  bool detach = false;  ///< leave guard running when done
  UpStep from = UpStep::doctor;
  const util::StopToken* stop = nullptr;
  std::function<void(const std::string&)> say;  ///< a line a step; may be empty
};

enum class StepOutcome { done, skipped, failed };
std::string_view to_string(StepOutcome o);

struct StepResult {
  UpStep step = UpStep::doctor;
  StepOutcome outcome = StepOutcome::done;
  std::string detail;  ///< what it found; for failed: why, and what to do
  std::string file;    ///< the JSON or file it wrote, "" for none
  double seconds = 0;
};

struct UpReport {
  core::RunInfo run_info;
  std::string url;  ///< the endpoint once served
  std::vector<StepResult> steps;
  bool interrupted = false;
  int guard_pid = -1;  ///< with --detach: the guard left running

  bool ok() const;
};

/// The engine from `--engine NAME` or the command after `--` (which wins), and the start-up
/// budget from its text (`--startup-timeout`); an Error names the flag and its choices.
Status set_engine(UpRequest& r, std::string_view engine, const std::vector<std::string>& command,
                  std::string_view startup);

/// The engine's command line as dcukit starts it, without a setting of tune's: vLLM `vllm serve
/// MODEL --host --port` (up serves the plan's launch script instead), SGLang's launch_server,
/// llama-server from PATH with a 4096-token context and its metrics, or the command given.
Result<std::vector<std::string>> engine_base_command(const UpRequest& r);

/// Where the engine answers: "http://HOST:PORT".
std::string engine_url(const UpRequest& r);

/// Checks the request before anything starts: the model exists, the engine's program is found,
/// the output folder can be made. An Error says which and what to do.
Status check_up(const UpRequest& request);

/// Runs the steps from request.from; then, unless detached, keeps the service under guard until
/// the stop token, and stops it completely.
/// Never an Error: a failed step is in the report.
UpReport run_up(const UpRequest& request);

std::string render_text(const UpReport& report);
std::string render_json(const UpReport& report);

}  // namespace dcukit::flows
