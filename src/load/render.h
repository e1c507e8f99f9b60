#pragma once
// Rendering a load Report: JSON in the shape of `vllm bench serve`'s result file (plus dcukit's
// own fields, and per-request detail with --save-detailed), CSV with one row a level, and text
// tables. A figure without samples, or one the server does not expose, is null in JSON and "-"
// in text and CSV: never 0.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/table.h"
#include "load/types.h"
#include "util/result.h"

namespace dcukit::load {

/// One latency metric as named in JSON keys ("ttft" -> mean_ttft_ms ...).
struct NamedMetric {
  const char* key;
  const char* title;
  MetricStats LatencySummaries::*member;
};

/// The latency metrics in output order: vLLM's four first, then dcukit's additions.
extern const std::vector<NamedMetric> kLatencyMetrics;

/// The metric whose JSON stem is `key`, or null.
const NamedMetric* find_metric(std::string_view key);

/// "99" for 99, "99.9" for 99.9: the word in a percentile's key, as vLLM writes it (p99_ttft_ms).
std::string percentile_word(double p);

/// The scalar fields of one level, in output order, under vLLM's names (no arrays).
nlohmann::ordered_json level_summary_json(const Report& report, const LevelReport& level);

/// The JSON of a run, starting with run_info: one level gives vLLM's flat result object;
/// several give {"runs": [...]} with one such object a level. With save_detailed each level
/// also has vLLM's per-request arrays (input_lens, output_lens, ttfts, itls, generated_texts,
/// errors, ...) and dcukit's "requests".
nlohmann::ordered_json to_json(const Report& report);

/// The version of to_json's shape; raised when a field changes meaning or goes away.
inline constexpr int kLoadSchemaVersion = 2;

/// One vLLM-style result file (`vllm bench serve --save-result`): a level's fields flat, as
/// vLLM writes them, at `path`.
struct ResultFile {
  std::string path, content;
};
/// A file per level under `dir` (empty: the current folder), named as vLLM names them unless
/// `filename` is given (then the run must have one level).
std::vector<ResultFile> vllm_result_files(const Report& report, const std::string& dir, const std::string& filename);

/// One CSV row per level with every scalar field of level_summary_json.
std::string report_csv(const Report& report);

/// The tables a person reads: a summary (one row a level) and, for each level, the latency
/// percentiles, each with its notes.
std::vector<core::Table> report_tables(const Report& report);

/// report_tables as terminal text.
std::string render_text(const Report& report);
/// report_tables as Markdown, for a ticket or a post.
std::string render_markdown(const Report& report);

/// Reads to_json's document back (a run kept from another host or version): the run's settings
/// and every level's figures; the error says what is not a load report.
Result<Report> from_json(std::string_view text);

/// The JSON keys a --metadata key may not take (the result's own fields).
std::vector<std::string> reserved_keys();

}  // namespace dcukit::load
