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

/// The command line of `dcukit load`, as typed.
struct LoadArgs {
  std::string url, endpoint = "/v1/completions", model, api_key_env = "OPENAI_API_KEY";
  std::vector<std::string> headers;
  bool insecure = false;
  std::string cacert;
  double timeout_s = 600;
  std::string dataset = "random", dataset_path, prompt_mode = "auto";
  int input_len = 1024, output_len = -1, output_len_max = 0, prefix_len = 0;  // -1: 128 or the file's
  bool no_ignore_eos = false, ignore_eos = false, min_tokens = false, no_stream = false, no_usage = false, continuous_usage = false;
  double temperature = 0;
  std::string extra_body;
  std::size_t num_prompts = 0;
  double duration_s = 0;
  std::vector<int> concurrency;
  std::vector<double> rates;
  double burstiness = 1;
  int max_concurrency = 0;
  int threads = 0;
  std::size_t warmup = 0;
  std::uint64_t seed = 0;
  double wait_ready_s = 0;
  bool no_trial = false;
  std::string slo, metrics_url, json_path, csv_path;
  std::vector<std::string> goodput;  ///< vLLM's --goodput KEY:VALUE...
  bool save_result = false;          ///< vLLM's --save-result
  std::string result_dir, result_filename, label;
  bool metrics_auth = false, save_detailed = false;
  std::vector<std::string> metadata, percentile_metrics;
  std::vector<double> metric_percentiles;
  bool no_progress = false;
  std::string markdown_path;  ///< --markdown [FILE]: "-" stdout
  std::string compare_a, compare_b;
};

/// Turns the command line into the run's request; errors are bad input.
Result<load::Request> to_request(const LoadArgs& a);

}  // namespace dcukit::cli
