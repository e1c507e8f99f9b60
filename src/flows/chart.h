#pragma once
// A report's chart as plain data (what to draw, not how), and its drawing as inline SVG: no
// script, no font file, no request, so that a report opens from a USB stick on an offline host.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dcukit::flows {

enum class ChartKind {
  bars,     ///< one bar a category, per series (grouped)
  lines,    ///< (x, y) points joined, per series; x may be logarithmic
  heatmap,  ///< a matrix of cells (rows x columns), the value written in each
};

/// A horizontal reference: a peak, an SLO.
struct RefLine {
  std::string label;
  double y = 0;
};

/// An expected band under one bar (floor to expected).
struct Band {
  std::size_t category = 0;
  double low = 0, high = 0;
};

struct Series {
  std::string name;
  std::vector<double> values;                   ///< bars: one a category (NaN: none)
  std::vector<std::pair<double, double>> xy;    ///< lines
  std::vector<std::string> flags;               ///< bars: "low", "high" or "" a category
};

struct Chart {
  ChartKind kind = ChartKind::bars;
  std::string title, x_label, y_label;
  std::vector<std::string> categories;  ///< bars: the x axis; heatmap: the columns
  std::vector<std::string> rows;        ///< heatmap: the rows
  std::vector<std::vector<std::optional<double>>> cells;  ///< heatmap: [row][column]
  std::vector<Series> series;
  std::vector<RefLine> lines;
  std::vector<Band> bands;
  std::vector<double> marks;  ///< lines: x positions of events (a throttle), drawn as ticks
  std::string marks_label;    ///< what the marks are
  bool log_x = false;

  /// True when there is something to draw.
  bool drawable() const;
};

/// The chart as one <svg> element (width 860), with a <title> for each figure's value.
std::string render_svg(const Chart& chart);

/// Text escaped for HTML and SVG.
std::string html_escape(std::string_view text);

}  // namespace dcukit::flows
