#pragma once
// `dcukit plan --check-log FILE`: the plan for the model, cards, settings and vLLM version a
// start-up log states, held line by line against what that vLLM printed. Where they differ by more
// than the tolerance, the result names the term plan is unsure of instead of one confident number.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/advice.h"
#include "plan/cards.h"
#include "plan/model_config.h"
#include "plan/vllm_budget.h"
#include "plan/vllm_log.h"
#include "plan/weights.h"
#include "util/result.h"

namespace dcukit::plan {

/// What the user gave besides the log; every field overrides what the log says.
struct CheckLogOptions {
  std::optional<std::string> model;         ///< --model: the directory holding config.json
  std::optional<std::string> gpu;           ///< --gpu NAME from the peak data
  std::optional<std::uint64_t> gpu_memory;  ///< --gpu-memory: the card's runtime total, bytes
  std::string gpu_memory_text;              ///< gpu_memory as the user typed it, for the source
  std::optional<std::string> vllm_version;  ///< --vllm-version
  bool weights_from_log = false;            ///< take the weights vLLM printed instead of counting them
  Asked asked;                              ///< engine flags given on the command line
};

/// The absolute tolerance on available KV per GPU; the relative one is kKvTolerance.
inline constexpr double kKvToleranceGiB = 0.35;
inline constexpr double kKvTolerance = 0.05;

/// One line of the comparison, GiB or a count; empty where a side has no figure.
struct CheckLine {
  std::string name;  ///< "available KV per GPU"
  std::optional<double> vllm, plan;
  bool gib = true;   ///< GiB (else a count or a ratio)
  std::string note;  ///< how vLLM's figure was read or plan's reached
  /// For the figures the verdict compares (available KV, blocks, tokens, concurrency, weights):
  /// whether plan's is within tolerance of vLLM's; empty for the other lines or where a side is missing.
  std::optional<bool> within;
};

/// One engine start of the log held against the plan.
struct RunCheck {
  int index = 0;  ///< 1-based run in the file
  VllmRun run;
  std::string version;  ///< the version whose accounting was used, and where it came from
  VllmContext context;
  Settings settings;
  int tp = 1, pp = 1;
  VllmBudget plan;
  std::vector<CheckLine> lines;
  bool checked = false;          ///< vLLM printed a KV result to compare with
  std::string not_checked;       ///< why not, when not checked
  bool within = false;           ///< every compared figure within tolerance (available KV, blocks, tokens, ...)
  bool kv_within = false;        ///< available KV per GPU within tolerance
  double kv_difference = 0;      ///< plan - vLLM, bytes
  double kv_tolerance = 0;       ///< bytes
  bool rules_reproduce = false;  ///< from vLLM's own available KV, plan's rules give its blocks/tokens/concurrency
  std::string rules_detail;      ///< what the reproduction compared
  /// What vLLM's profile run did that plan does not model (a multimodal model's vision encoder),
  /// in words; empty for a text model.
  std::string multimodal_profile;
  std::vector<std::string> uncertain;  ///< the terms plan is unsure of, worst first, when not within
  std::vector<std::string> notes;      ///< settings taken from defaults, weights from the log, ...
};

/// The whole file.
struct LogCheck {
  std::string log;
  std::string model;
  std::vector<RunCheck> runs;

  /// True when at least one run was compared and every compared run is within tolerance: a file
  /// in which nothing could be compared is not a pass.
  bool all_within() const;
  /// Runs with a KV result.
  int checked() const;
};

/// Checks one parsed run against `model` on `cards`. `weights` may be empty-sized when plan cannot
/// count them (then the log's figure is used, said in notes).
Result<RunCheck> check_run(const VllmRun& run, const ModelConfig& model, const Result<Weights>& weights,
                           const Cards& cards, const CheckLogOptions& options);

/// Reads the log at `path`, the model (--model, else the path the log names), the cards (--gpu,
/// --gpu-memory, else the total the log printed), and checks every run.
Result<LogCheck> check_log(const std::string& path, const CheckLogOptions& options);

}  // namespace dcukit::plan
