#pragma once
// `dcukit compare BASE NEW`: two bench runs case by case, or two stress runs check by check. Each case's rate in NEW against BASE;
// a change counts as a regression or an improvement only beyond the noise: the larger of the
// threshold asked for and the runs' own spread ((max - min) / median of each run's samples).
// Runs of a different card, backend or device count are not compared unless forced: the
// comparison says what differs and why it refused.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "bench/types.h"
#include "core/table.h"
#include "stress/types.h"
#include "util/result.h"

namespace dcukit::flows {

enum class Verdict { same, better, worse, only_base, only_new, failed };

/// "same", "better", "worse", "only in base", "only in new", "failed".
std::string_view to_string(Verdict v);

/// One case of both runs.
struct CompareRow {
  std::string where;      ///< "device 0", "group"
  std::string benchmark;  ///< "gemm", "memory", ...
  std::string name;       ///< the case's name: "fp16 N=8192"
  bench::RateUnit unit = bench::RateUnit::none;
  double base = 0, now = 0;  ///< rates (latency: microseconds, lower is better)
  double change = 0;         ///< now / base - 1, signed so that positive is better
  double noise = 0;          ///< the threshold this case's change was judged against (a fraction)
  Verdict verdict = Verdict::same;
  std::string why;  ///< for only_*/failed: what happened
};

struct CompareOptions {
  double threshold = 0.03;  ///< the smallest change that counts, as a fraction
  bool force = false;       ///< compare runs of different cards or settings anyway
};

struct Comparison {
  std::string base_origin, new_origin;
  /// What differs between the runs (card, driver, backend, host, command): (what, "base -> new").
  std::vector<std::pair<std::string, std::string>> differences;
  /// Why the runs are not comparable (empty when they are, or when forced).
  std::vector<std::string> refusals;
  std::vector<CompareRow> rows;

  int count(Verdict v) const;
};

/// Compares two bench reports. Never fails: incomparable runs come back with refusals.
Comparison compare_reports(const bench::Report& base, const bench::Report& now, const CompareOptions& options);

/// Compares two stress reports device by device: each check's sustained rate (FLOP/s, B/s), its
/// noise the larger of the threshold and how far each run's sustained figure moved between its
/// halves (the medians of the first and second half of its stretches); a check
/// whose verdict got worse (or found new errors) is a regression of its own. Runs of another
/// level, card, backend or device count are refused unless forced.
Comparison compare_reports(const stress::Report& base, const stress::Report& now, const CompareOptions& options);

/// Reads two bench (dcukit bench --json) or two stress (dcukit stress --json) result files and
/// compares them; an Error names the file that cannot be read or is of another kind.
Result<Comparison> compare_files(const std::string& base_path, const std::string& new_path, const CompareOptions& options);

core::Table to_table(const Comparison& c);
std::string render_markdown(const Comparison& c);
nlohmann::ordered_json to_json(const Comparison& c);

}  // namespace dcukit::flows
