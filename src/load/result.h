#pragma once
// The results of a load run as plain data: one LevelResult per load level (a concurrency or a
// rate of a sweep), inside a LoadReport that says what was run. Renderers read these; the JSON
// form follows `vllm bench serve`'s result file.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/stats.h"
#include "load/types.h"

namespace dcukit::load {

/// Service-level objectives for goodput, in milliseconds (0 = not set).
struct Slo {
  double ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;
  bool any() const { return ttft_ms > 0 || tpot_ms > 0 || e2e_ms > 0; }
};

/// The change in a vLLM server's /metrics counters over one level, and the peak KV-cache use.
struct ServerDelta {
  double prompt_tokens = 0, generation_tokens = 0, preemptions = 0;
  double prefix_cache_hits = 0, prefix_cache_queries = 0;
  double kv_cache_usage_peak = -1;   ///< fraction 0..1; -1 when the server did not report it
  std::vector<std::string> missing;  ///< metrics the server did not expose
};

/// The per-metric summaries, in milliseconds. Names follow vLLM where vLLM has the metric.
struct LatencySummaries {
  core::Summary ttft;        ///< first content token, from the actual send
  core::Summary ttft_sched;  ///< first content token, from the scheduled send
  core::Summary send_lag;    ///< actual minus scheduled send: the client's own lag
  core::Summary tpot;        ///< (E2E - TTFT) / (N - 1)
  core::Summary itl;         ///< gaps between content chunks
  core::Summary itl_token;   ///< the same gaps spread over the tokens of each chunk
  core::Summary e2el;        ///< last content token, from the actual send
  core::Summary e2el_sched;  ///< last content token, from the scheduled send
};

/// One load level's figures and its requests.
struct LevelResult {
  std::string label;  ///< "concurrency 8", "rate 4/s"
  ShapeKind kind = ShapeKind::closed;
  int concurrency = 0;  ///< closed: in flight; open: the cap (0 = none)
  double rate = 0;      ///< open: requests per second (inf allowed)
  double burstiness = 1;
  std::size_t num_prompts = 0;  ///< requests issued
  std::size_t completed = 0, failed = 0;
  std::map<std::string, std::size_t> errors_by_class;
  std::map<long, std::size_t> http_status_counts;
  std::size_t usage_missing = 0;  ///< completed requests without a usage chunk
  double duration_s = 0;
  long long total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  std::optional<double> request_goodput;  ///< set when an SLO was given
  std::size_t good_requests = 0;
  double max_output_tokens_per_s = 0;
  int max_concurrent_requests = 0;
  LatencySummaries lat;
  std::optional<ServerDelta> server;
  RunRecords records;  ///< per-request detail
};

/// A whole run: what was asked for, and each level.
struct LoadReport {
  std::string date;     ///< UTC, ISO 8601
  std::string backend;  ///< "openai" or "openai-chat", as vLLM names them
  std::string url, endpoint, model, dataset;
  int input_len = 0, output_len = 0;
  bool stream = true;
  Slo slo;
  std::size_t warmup = 0;
  std::vector<LevelResult> levels;
};

/// Computes a level's figures from its records (the records are moved in and kept).
LevelResult summarize_level(RunRecords records, const Slo& slo);

/// Tokens in each content chunk: the server's own counts when every chunk carried usage
/// (--continuous-usage); otherwise an estimate, the request's token count spread over its chunks
/// in proportion to their bytes (each chunk at least one token when there are enough tokens).
std::vector<int> tokens_per_chunk(const RequestRecord& r);

}  // namespace dcukit::load
