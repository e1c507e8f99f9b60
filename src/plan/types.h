#pragma once
// `dcukit plan`'s Request (a model directory, cards by name or this host's, engine settings, the
// vLLM version whose accounting to follow, or a start-up log to check) and Report (the plan, or
// the log held against it line by line). Plain structs; plan::run fills the Report and the
// renderers (plan/render.h) read it.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/run_info.h"
#include "plan/advice.h"
#include "plan/check_log.h"
#include "plan/planner.h"
#include "util/result.h"

namespace dcukit::device {
struct DetectedDevice;
}
namespace dcukit::stack {
struct PythonStack;
}

namespace dcukit::plan {

/// Everything a plan is made from.
struct Request {
  std::string model;                        ///< a model directory holding config.json, or the file
  std::string gpu;                          ///< cards by name from the peak data; empty: this host's
  std::optional<int> count;                 ///< cards: default 8 with gpu, all detected without
  std::optional<std::uint64_t> gpu_memory;  ///< a card's runtime total, overriding the data or detection
  std::string gpu_memory_text;              ///< gpu_memory as the user typed it, for the source
  Asked asked;                              ///< the engine settings asked for
  std::string command;                      ///< the command line, recorded in run_info
  std::string python = "python3";           ///< the serving environment's interpreter, for the probe
  /// The vLLM version whose accounting and defaults to follow; empty: the one the probe finds on
  /// this host where the cards are detected, else the newest the data knows.
  std::optional<std::string> vllm_version;
  /// A vLLM start-up log: check it (model, cards, settings and version from the log, the fields
  /// above overriding) instead of planning. Empty: plan.
  std::string check_log;
  bool weights_from_log = false;  ///< with check_log: vLLM's printed weights instead of plan's count
  /// This host's GPUs; empty: the device registry's. Tests pass fakes.
  std::function<std::vector<device::DetectedDevice>()> detect;
  /// Asks this host's Python stack (bf16 from the card itself, the vLLM version); empty:
  /// stack::probe_python with `python` and a deadline. Called only for detected cards. Tests
  /// pass fakes.
  std::function<Result<stack::PythonStack>()> probe_stack;
};

/// What plan produced: the report header and the plan, or the check of a log.
struct Report {
  core::RunInfo run_info;
  Plan plan;                      ///< the plan; empty when a log was checked
  std::optional<LogCheck> check;  ///< the log held against the plan, when Request::check_log was set
};

}  // namespace dcukit::plan
