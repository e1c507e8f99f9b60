#pragma once
// Any dcukit result file read back into its capability's Report: the interface across hosts
// and versions that `report` and `compare` read (a fleet's folder of JSON files, a baseline kept
// from last month). Which command wrote a file is its run_info's "tool"; each capability's
// from_json reads the rest, so a file is read exactly as the command that wrote it meant.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bench/render.h"
#include "core/run_info.h"
#include "doctor/render.h"
#include "exporter/render.h"
#include "guard/render.h"
#include "load/render.h"
#include "patrol/render.h"
#include "plan/render.h"
#include "port/render.h"
#include "stress/render.h"
#include "telemetry/render.h"
#include "util/result.h"

namespace dcukit::flows {

/// The command that wrote a result.
enum class ResultKind {
  bench,
  plan,
  load,
  doctor,
  port_audit,
  port_translate,
  telemetry,
  patrol,
  guard,
  exporter,
  stress,
};

/// "bench", "plan", ..., "port audit": the command as typed after `dcukit`.
std::string_view to_string(ResultKind kind);

/// One capability's report, as its from_json gives it back.
using AnyReport = std::variant<bench::Report, plan::Report, load::Report, doctor::Report, port::AuditReport,
                               port::TranslateReport, telemetry::Snapshot, patrol::Report, guard::Report,
                               exporter::Report, stress::Report>;

/// A result file read back.
struct ResultFile {
  std::string path;  ///< where it was read ("" for text given directly)
  ResultKind kind = ResultKind::bench;
  core::RunInfo run_info;
  AnyReport report;
  nlohmann::json document;  ///< the file's JSON as read (the merged report keeps it whole)
};

/// Reads one result from its JSON text (a JSON Lines file of --watch: its first reading). The
/// error names `origin` and says why: not JSON, no run_info, a command whose results dcukit
/// does not read back, or the capability's own reason.
Result<ResultFile> parse_result(std::string_view text, const std::string& origin);

/// parse_result of the file at `path` (read through util's bounded reader).
Result<ResultFile> read_result(const std::string& path);

/// Every *.json file under `dir` (recursively, sorted by path) read back; a file that is not a
/// dcukit result is an error naming it, never skipped silently: unless `skipped` is given, which
/// then gets one line a file left out, with why.
Result<std::vector<ResultFile>> read_results(const std::string& dir, std::vector<std::string>* skipped = nullptr);

}  // namespace dcukit::flows
