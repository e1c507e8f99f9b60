#pragma once
// `dcukit report FILES|DIR...`: any dcukit results (bench, plan, load, doctor, telemetry,
// stress, multi-GPU, patrol; one host's or a fleet's folder) as one document a person reads:
// each result's own tables, its charts where the data is there, every rate placed against what
// a healthy card of its SKU measures, and one row per host for a fleet. Rendered as one
// self-contained HTML file (inline SVG, no script, no request), as Markdown, and as the merged
// JSON. GuideLLM's and genai-perf's reports, Phoronix's merged results are the anchors.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/table.h"
#include "flows/chart.h"
#include "flows/results.h"
#include "util/result.h"

namespace dcukit::flows {

/// One result file in the report.
struct ReportSection {
  std::string title;   ///< "bench on h200-node: NVIDIA H200 (cuda)"
  std::string origin;  ///< the file
  ResultKind kind = ResultKind::bench;
  core::RunInfo run_info;
  std::string markdown;            ///< the command's own Markdown rendering
  std::vector<core::Table> placed; ///< its rates against the expected figures
  std::vector<Chart> charts;
};

/// The whole report.
struct ReportDoc {
  core::RunInfo run_info;  ///< of `dcukit report` itself
  std::vector<ReportSection> sections;
  /// Several hosts' bench or stress results: one row a host, outliers marked.
  std::vector<core::Table> fleet;
  std::vector<Chart> fleet_charts;
  std::vector<std::string> notes;  ///< what the reader should know (a result without charts)
  std::vector<ResultFile> files;   ///< what was read, in order
  /// The time series read from CSV files: (path, readings); their sections follow the files'.
  std::vector<std::pair<std::string, std::size_t>> series;
};

/// Reads every path (a result file, a telemetry or stress CSV, or a folder read recursively,
/// its *.json and *.csv) and builds the report. An
/// Error names the input that is missing, unreadable or not a dcukit result; no input at all
/// is an error too.
Result<ReportDoc> build_report(const std::vector<std::string>& inputs, const core::RunInfo& run_info);

/// A time series as `dcukit telemetry --watch --csv` (timestamp, index, ...) or `dcukit stress
/// --csv` (t_s, device, phase, ...) wrote it; an Error names the file and what is missing.
Result<std::vector<stress::Sample>> read_series_csv(const std::string& path);

/// Each device's clock, power and temperature over time, throttle events marked.
std::vector<Chart> sample_charts(const std::vector<stress::Sample>& samples);

/// The charts of one result (empty where its data has none to draw).
std::vector<Chart> charts_of(const ResultFile& file);

/// The placement table of one result (empty where nothing was placed).
std::vector<core::Table> placement_tables(const ResultFile& file);

/// A bench rate as the report's tables print it: "989.4 TFLOPS", "4512.3 GB/s".
std::string rate_text(double v, bench::RateUnit unit);

/// One row a host over the bench and stress results of several hosts; empty for one host.
std::vector<core::Table> fleet_tables(const std::vector<ResultFile>& files, std::vector<Chart>* charts);

/// One HTML file: inline CSS and SVG, a Content-Security-Policy that forbids any request.
std::string render_html(const ReportDoc& doc);
/// The same tables as Markdown (charts left out: a note says where they are).
std::string render_markdown(const ReportDoc& doc);
/// run_info, then every result as its file holds it, the placements and the fleet table.
nlohmann::ordered_json to_json(const ReportDoc& doc);

/// Markdown as dcukit's renderers write it (headings, pipe tables, lists, paragraphs, code)
/// as HTML; everything else escaped.
std::string markdown_to_html(std::string_view markdown);

}  // namespace dcukit::flows
