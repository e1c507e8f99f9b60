#pragma once
// `dcukit load`'s command line as typed, and its translation into load::Request: every check
// that needs more than one flag, with the message that names the flags and the fix.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "load/run.h"
#include "util/result.h"

namespace dcukit::cli {

/// The command line of `dcukit load`: CLI11 writes the engine's own fields straight into
/// `request`; the rest is what needs reading first (a file, an environment variable, JSON, vLLM's
/// spellings) or belongs to the CLI (its outputs).
struct LoadArgs {
  load::Request request;
  std::string api_key_env = "OPENAI_API_KEY";
  double timeout_s = 600;
  std::string dataset = "random", prompt_mode = "auto";
  int output_len = -1;  ///< -1: 128 for random prompts, the file's lengths otherwise
  bool no_ignore_eos = false, ignore_eos = false, no_stream = false, no_usage = false, no_trial = false;
  std::string extra_body;
  std::string slo;
  std::vector<std::string> goodput;  ///< vLLM's --goodput KEY:VALUE...
  std::vector<std::string> metadata;
  bool save_result = false;  ///< vLLM's --save-result
  std::string result_dir, result_filename;
  std::string json_path, csv_path;
  bool no_progress = false;
  std::string markdown_path;  ///< --markdown [FILE]: "-" stdout
  std::string compare_a, compare_b;
};

/// The run's request: `request` with what needed reading filled in, then load::validate; errors
/// are bad input.
Result<load::Request> to_request(const LoadArgs& a);

}  // namespace dcukit::cli
