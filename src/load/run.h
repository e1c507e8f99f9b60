#pragma once
// `dcukit load`'s one entry point: run(Request) -> Report. It waits for the server, finds out
// what the server accepts (a trial request first, token ids or text, its /tokenize dialect),
// builds the prompts, warms up, then runs each load level of the sweep (scraping /metrics
// around it when asked). Whatever ends the run early (a stop, a dead server, a failed engine),
// every level measured before it stays in the Report.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/run_info.h"
#include "load/body.h"
#include "load/engine.h"
#include "load/report.h"
#include "load/workload.h"
#include "util/http.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::load {

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

/// Runs every level. The Report holds what was measured; Report::problem says what ended the
/// run early (bad input, a server that never got ready, a failed trial request, a failed engine)
/// and Report::interrupted whether the user stopped it. Credentials in URLs are redacted from
/// everything in it.
Report run(const Request& request);

}  // namespace dcukit::load
