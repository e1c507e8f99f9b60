#pragma once
// The results of a load run as plain data: one LevelReport per load level (a concurrency or a
// rate of a sweep), inside a Report that says what was run and how it went. Renderers
// (load/render.h) read these; the JSON form follows `vllm bench serve`'s result file.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_info.h"
#include "core/stats.h"
#include "load/types.h"

namespace dcukit::load {

/// Service-level objectives for goodput, in milliseconds (0 = not set).
struct Slo {
  double ttft_ms = 0, tpot_ms = 0, e2e_ms = 0;
  bool any() const { return ttft_ms > 0 || tpot_ms > 0 || e2e_ms > 0; }
};

/// What a level did to the server, read from its /metrics in the server's own dialect. A figure
/// the server does not expose is nullopt (rendered null or "-"), never 0.
struct ServerDelta {
  std::string dialect;  ///< "vllm", "sglang", "llamacpp", "tgi"; "" when none was recognised
  std::optional<double> prompt_tokens, generation_tokens, preemptions;
  std::optional<double> prefix_cache_hits, prefix_cache_queries;
  std::optional<double> kv_cache_usage_peak;  ///< fraction 0..1
  std::vector<std::string> missing;           ///< figures the server did not expose
  int scrapes = 0;                            ///< scrapes that succeeded
  std::string error;  ///< the last scrape failed (the server went away): the figures stop at the last good one
};

/// One latency metric over a level: its summary and its value at each of the report's
/// percentiles (Report::metric_percentiles). count 0 means no samples.
struct MetricStats {
  core::Summary summary;
  std::vector<double> percentiles;
};

/// The per-metric figures, in milliseconds. Names follow vLLM where vLLM has the metric.
struct LatencySummaries {
  MetricStats ttft;        ///< first content token, from the actual send
  MetricStats ttft_sched;  ///< first content token, from the scheduled send
  MetricStats send_lag;    ///< actual minus scheduled send: the client's own lag
  MetricStats tpot;        ///< (E2E - TTFT) / (N - 1), streamed replies only
  MetricStats itl;         ///< gaps between content chunks
  MetricStats itl_token;   ///< the same gaps spread over the tokens of each chunk
  MetricStats e2el;        ///< last content token, from the actual send
  MetricStats e2el_sched;  ///< last content token, from the scheduled send
};

/// One load level's figures and its requests.
struct LevelReport {
  std::string label;  ///< "concurrency 8", "rate 4/s" (the JSON's "level")
  ShapeKind kind = ShapeKind::closed;
  int concurrency = 0;  ///< closed: in flight; open: the cap (0 = none)
  double rate = 0;      ///< open: requests per second (inf allowed)
  double burstiness = 1;
  std::size_t num_prompts = 0;  ///< requests issued
  std::size_t completed = 0, failed = 0;
  std::map<ErrorClass, std::size_t> errors_by_class;
  std::map<long, std::size_t> http_status_counts;
  std::size_t usage_missing = 0;       ///< completed requests without a usage chunk
  std::size_t truncated_prompts = 0;   ///< completed requests whose prompt the server counted shorter than sent
  std::size_t unstreamed = 0;          ///< streamed requests the server answered with one JSON body
  std::size_t exact_chunk_tokens = 0;  ///< completed requests whose every chunk carried usage
  double duration_s = 0;
  long long total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  std::optional<double> request_goodput;  ///< set when an SLO was given
  std::size_t good_requests = 0;
  double max_output_tokens_per_s = 0;
  int max_concurrent_requests = 0;
  bool cancelled = false;  ///< the user stopped the run during this level
  LatencySummaries lat;
  std::optional<ServerDelta> server;
  RunRecords records;  ///< per-request detail
};

/// Why a run stopped before it measured everything it was asked to.
enum class ProblemKind {
  bad_input,  ///< the input was wrong (a file, a length, a flag): exit 2
  failed,     ///< the server or the client failed: exit 1
};

/// What stopped the run, in words a user can act on.
struct Problem {
  ProblemKind kind = ProblemKind::failed;
  std::string message;
};

/// A whole run: what was asked for, what dcukit found out about the server, and each level.
struct Report {
  core::RunInfo run_info;  ///< the header of the JSON (credentials in the command line redacted)
  std::string date;        ///< local time as vLLM writes it, %Y%m%d-%H%M%S (run_info has UTC)
  std::string backend;     ///< "openai" or "openai-chat", as vLLM names them (its endpoint_type)
  std::string label;       ///< --label, as vLLM's; default: the backend
  std::size_t num_prompts = 0;  ///< -n as asked (0: --duration alone); each level says how many it sent
  std::string url;         ///< the server's origin, credentials redacted
  std::string endpoint, model, dataset;
  int input_len = 0, output_len = 0;
  std::string prompts;    ///< "token ids" or "text"
  std::string tokenizer;  ///< how prompt lengths were counted ("vLLM /tokenize", "usage", ...); "" when not needed
  bool stream = true;
  std::uint64_t seed = 0;
  Slo slo;
  std::size_t warmup = 0;
  std::vector<std::pair<std::string, std::string>> metadata;  ///< --metadata, in the order given
  std::vector<std::string> percentile_metrics;                ///< metrics rendered, by JSON stem
  std::vector<double> metric_percentiles;                     ///< percentiles rendered for each
  bool save_detailed = false;                                 ///< per-request arrays in the JSON
  std::vector<std::string> notes;  ///< what the user should know: fallbacks, warnings, ignored options
  bool interrupted = false;        ///< the user stopped the run (Ctrl-C, SIGTERM)
  std::optional<Problem> problem;  ///< what ended the run early; the levels before it are kept
  std::vector<LevelReport> levels;

  /// Failed requests over every level.
  std::size_t failed_requests() const;
};

/// Computes a level's figures from its records (moved in and kept); percentiles are taken at
/// each value of `percentiles` (0 to 100).
LevelReport summarize_level(RunRecords records, const Slo& slo, const std::vector<double>& percentiles);

/// Tokens in each content chunk: the server's own counts when every chunk carried usage
/// (--continuous-usage); otherwise an estimate, the request's token count spread over its chunks
/// in proportion to their bytes (each chunk at least one token when there are enough tokens).
std::vector<int> tokens_per_chunk(const RequestRecord& r);

}  // namespace dcukit::load
