#pragma once
// `dcukit load`'s Request (everything a run needs, as the CLI parsed it) and Report (the results
// as plain data: one LevelReport per load level, a concurrency or a rate of a sweep, inside a
// Report that says what was run and how it went). Renderers (load/render.h) read the Report;
// its JSON follows `vllm bench serve`'s result file.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_info.h"
#include "core/stats.h"
#include "load/body.h"
#include "load/engine.h"
#include "load/records.h"
#include "load/workload.h"
#include "util/http.h"

namespace dcukit::util {
class StopToken;
}

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
  int event_loops = 1;                     ///< client threads the streams were spread over
  std::optional<std::string> first_error;  ///< the first failed request's error, in request order
  bool cancelled = false;  ///< the user stopped the run during this level
  LatencySummaries lat;
  std::optional<ServerDelta> server;
  RunRecords records;  ///< per-request detail
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

/// How random prompts are sent.
enum class PromptMode {
  automatic,  ///< token ids on /v1/completions, text when the server refuses them (and on chat)
  ids,        ///< token ids only
  text,       ///< text calibrated to the server's own token count
};

/// Everything a run needs, as the CLI parsed it. Values are already checked for range.
struct Request {
  std::string url;  ///< the server's origin as typed (credentials allowed: sent, never shown)
  std::string endpoint = "/v1/completions";
  std::string model;                 ///< empty: the first model /v1/models lists
  std::vector<std::string> headers;  ///< -H lines, sent with every request to the server
  std::string api_key;               ///< sent as "Authorization: Bearer" to the server
  std::string metrics_url;           ///< Prometheus text to scrape around each level ("" = none)
  bool metrics_auth = false;         ///< also send the API key and -H headers to a metrics URL on another server
  util::Tls tls;
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  ///< per request, every request
  int threads = 0;                                              ///< client event loops (0 = automatic)
  BodyOptions body;                                             ///< api and model are filled in by the run
  PromptMode prompts = PromptMode::automatic;
  WorkloadSpec workload;
  std::vector<int> concurrencies;  ///< closed-loop levels
  std::vector<double> rates;       ///< open-loop levels (take precedence)
  double burstiness = 1.0;
  int max_concurrency = 0;      ///< open-loop cap; alone (no rates, no concurrencies): rate inf capped here, as vLLM
  std::size_t num_prompts = 0;  ///< requests per level (0 = duration only)
  double duration_s = 0;
  std::size_t warmup = 0;
  std::uint64_t seed = 0;
  double wait_ready_s = 0;  ///< poll /health then /v1/models for up to this long
  bool trial = true;        ///< send one request first and stop when it fails (vLLM's initial test run)
  Slo slo;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::string label;  ///< --label (vLLM's): names the result; default the backend
  std::vector<std::string> percentile_metrics;  ///< JSON stems (ttft, tpot, itl, e2el, ...)
  std::vector<double> metric_percentiles;
  bool save_detailed = false;
  core::RunInfo run_info;
  const util::StopToken* stop = nullptr;  ///< SIGINT and SIGTERM: stop, keep what was measured
  /// Live progress of a level (or of the trial and warm-up), a few times a second.
  std::function<void(const std::string& label, const Progress&)> on_progress;
  /// A line the user should see now (a fallback, a warning); also kept in Report::notes.
  std::function<void(const std::string&)> on_notice;
};

}  // namespace dcukit::load
