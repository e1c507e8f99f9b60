#pragma once
// A whole `dcukit load` run: wait for the server, build the prompts, warm up, then run each load
// level of the sweep (scraping /metrics around it when asked) and collect a LoadReport.
#include <atomic>
#include <string>
#include <vector>

#include "load/engine.h"
#include "load/result.h"
#include "load/workload.h"
#include "util/result.h"

namespace dcukit::load {

/// Everything a run needs, as the CLI parsed it.
struct LoadOptions {
  std::string base_url;  ///< scheme://host:port
  std::string endpoint = "/v1/completions";
  std::string model;    ///< empty: the first model /v1/models lists
  EngineConfig engine;  ///< url and request.model/api are filled in by the run
  WorkloadSpec workload;
  std::vector<int> concurrencies;  ///< closed-loop levels
  std::vector<double> rates;       ///< open-loop levels (take precedence)
  double burstiness = 1.0;
  int max_concurrency = 0;      ///< cap for open-loop levels (0 = none)
  std::size_t num_prompts = 0;  ///< requests per level (0 = duration only)
  double duration_s = 0;
  std::size_t warmup = 0;
  std::uint64_t seed = 0;
  double wait_ready_s = 0;  ///< poll /health then /v1/models for up to this long
  Slo slo;
  std::string metrics_url;                       ///< vLLM /metrics, scraped around each level
  bool progress = false;                         ///< live progress on stderr
  const std::atomic<bool>* interrupt = nullptr;  ///< set by SIGINT; stops the run
};

/// Runs every level. Fails when the server never got ready, the prompts cannot be built, or
/// the engine cannot run; failed requests are part of the report, not an error.
Result<LoadReport> run_load_test(LoadOptions options);

}  // namespace dcukit::load
