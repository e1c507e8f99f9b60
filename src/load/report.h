#pragma once
// Rendering a LoadReport: JSON in the shape of `vllm bench serve`'s result file (plus dcukit's
// own fields and per-request detail), CSV with one row a level, and text tables.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/table.h"
#include "load/result.h"

namespace dcukit::load {

/// One latency metric as named in JSON keys ("ttft" -> mean_ttft_ms ...), with its summary.
struct NamedMetric {
  const char* key;
  const char* title;
  core::Summary LatencySummaries::*member;
};

/// The latency metrics in output order: vLLM's four first, then dcukit's additions.
extern const std::vector<NamedMetric> kLatencyMetrics;

/// The scalar fields of one level, in output order, under vLLM's names (no arrays).
nlohmann::ordered_json level_summary_json(const LoadReport& report, const LevelResult& level);

/// The JSON of a run: one level gives vLLM's flat result object with per-request arrays
/// (input_lens, output_lens, ttfts, itls, errors) and "requests"; several give {"runs": [...]}.
std::string report_json(const LoadReport& report);

/// One CSV row per level with every scalar field of level_summary_json.
std::string report_csv(const LoadReport& report);

/// The tables a person reads: a summary (one row a level) and, for each level, the latency
/// percentiles.
std::vector<core::Table> report_tables(const LoadReport& report);

}  // namespace dcukit::load
