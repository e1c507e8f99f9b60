#pragma once
// `dcukit load compare A.json B.json`: two runs side by side, each level of A paired with the
// level of B at the same load (concurrency, rate and cap), with the change in each metric, and
// what differs between the two runs (model, dataset, lengths, settings, host). Reads dcukit's
// JSON and `vllm bench serve` result files.
#include <string>
#include <vector>

#include "core/table.h"
#include "util/result.h"

namespace dcukit::load {

/// One metric of one paired level, judged.
struct JudgedMetric {
  std::string level, metric;
  double a = 0, b = 0;
  double change = 0;  ///< signed so that positive is better (latency: a / b - 1; throughput: b / a - 1)
  int verdict = 0;    ///< -1 worse, 0 within the threshold, +1 better
};

/// A load comparison judged: each paired level's headline metrics (TTFT, TPOT, ITL and E2E
/// median and p99; request and output throughput; goodput) against a threshold, and the load
/// settings that differ (model, endpoint, dataset, lengths, prompts, streaming, burstiness, the
/// number of prompts), which make the runs incomparable unless forced.
struct Judgement {
  std::vector<std::string> refusals;  ///< "input_len: 8 -> 16"
  std::vector<JudgedMetric> metrics;
  int count(int verdict) const;
};

/// Judges B against A. `threshold` is a fraction (0.05: a change under 5% is noise): a load run
/// keeps no repeats whose spread could set it, so it is the threshold alone.
Result<Judgement> judge_files(const std::string& a_path, const std::string& b_path, double threshold);

/// The tables of the comparison: what differs between the runs, then one table a paired level.
/// An Error (bad input) names the file that cannot be read or holds no load results.
Result<std::vector<core::Table>> compare_files(const std::string& a_path, const std::string& b_path);

}  // namespace dcukit::load
