#pragma once
// How a benchmark's results are shown: each benchmark declares its table (title, columns with
// their units, how a cell is made from a Measurement, notes), and the renderers only lay it
// out. So the renderers have no per-benchmark branches and never parse numbers back out of text.
#include <functional>
#include <string>
#include <vector>

#include "bench/types.h"
#include "core/table.h"

namespace dcukit::bench {

/// One column: its header (with the unit), alignment, and its cell for a measurement.
struct ColumnSpec {
  std::string header;  ///< "median ms", "GB/s", "% peak"
  core::Align align = core::Align::right;
  std::function<std::string(const Measurement&)> cell;
  /// Set for a column whose unit depends on the table's figures (scaled_rate_column): the
  /// concrete column for these measurements.
  std::function<ColumnSpec(const std::vector<const Measurement*>&)> resolve = {};
};

/// One benchmark's table.
struct TableSpec {
  std::string title;
  std::vector<ColumnSpec> columns;
  std::vector<std::string> notes;  ///< under the table, after the measurements' peak notes
  bool peak_notes = true;          ///< list each distinct Measurement::peak_note above the notes
  /// Notes computed from the measurements (an average), after the others; may be empty.
  std::function<std::vector<std::string>(const std::vector<const Measurement*>&)> summary = {};
  /// Tables shown after this one, made from the same measurements (p2p's matrices); may be empty.
  std::function<std::vector<core::Table>(const std::vector<const Measurement*>&)> more = {};
};

/// make_table's table, then those of spec.more.
std::vector<core::Table> make_tables(const TableSpec& spec, const std::vector<const Measurement*>& measurements);

/// The table of `spec` with one row a measurement.
core::Table make_table(const TableSpec& spec, const std::vector<const Measurement*>& measurements);

// Columns that several benchmarks share.

/// The text parameter `key`; when it has none, the measurement's name if `or_name`, else "".
ColumnSpec text_column(std::string header, std::string key, bool or_name = false);
/// A rate in the unit its largest figure reads best in: T, G or M before `unit` ("FLOPS"), so
/// that a CPU's 94 GFLOPS is not printed as 0.1 TFLOPS.
ColumnSpec scaled_rate_column(std::string unit, int decimals = 1);
/// The measurement's name.
ColumnSpec name_column(std::string header);
/// The integer parameter `key` as a number, or "-".
ColumnSpec integer_column(std::string header, std::string key);
/// The integer parameter `key` as a size ("256 MiB"), or "-".
ColumnSpec bytes_column(std::string header, std::string key);
/// A statistic of the samples (median, min, ...) in milliseconds times `scale` ("-" when none).
ColumnSpec time_column(std::string header, double core::Summary::*statistic, double scale = 1.0);
/// The rate divided by `divisor` with `decimals` decimals; "-" unless the case is ok.
ColumnSpec rate_column(std::string header, double divisor, int decimals = 1);
/// The rate as a percentage of the peak, or "-".
ColumnSpec percent_column(std::string header = "% peak");
/// The rate against the SKU's expected figure: "normal 0.98x", "LOW 0.61x", "high 1.31x", or "-".
ColumnSpec placement_column(std::string header = "vs expected");
/// "ok", or "failed: reason" / "skipped: reason".
ColumnSpec status_column();

}  // namespace dcukit::bench
