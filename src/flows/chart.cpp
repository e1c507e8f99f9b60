#include "flows/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dcukit::flows {
namespace {

constexpr double kWidth = 860, kHeight = 360, kLeft = 70, kRight = 20, kTop = 34, kBottom = 84;
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const char* colour(std::size_t i) { return kColours[i % std::size(kColours)]; }

std::string num(double v) {
  const double a = std::fabs(v);
  if (a >= 1e4 || (a > 0 && a < 1e-2)) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

/// Maps data to pixels on one axis.
struct Scale {
  double lo = 0, hi = 1, p0 = 0, p1 = 1;
  bool log = false;
  double operator()(double v) const {
    const double a = log ? std::log10(std::max(v, 1e-300)) : v, l = log ? std::log10(lo) : lo,
                 h = log ? std::log10(hi) : hi;
    return h == l ? (p0 + p1) / 2 : p0 + (a - l) / (h - l) * (p1 - p0);
  }
};

/// How far drawn text reaches past the chart's box, in pixels: the canvas grows by as much.
struct Overflow {
  double left = 0, bottom = 0;
};

std::string frame(const Chart& c, std::string body, Overflow o = {}) {
  const double left = o.left > 0 ? std::ceil(o.left) : 0, bottom = o.bottom > 0 ? std::ceil(o.bottom) : 0;
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"{5} 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "role=\"img\" aria-label=\"{2}\"><title>{2}</title>"
      "<text x=\"{3}\" y=\"18\" class=\"ct\">{2}</text>{4}</svg>",
      kWidth + left, kHeight + bottom, html_escape(c.title), kLeft, body, left > 0 ? -left : 0.0);  // never "-0"
}

std::string y_axis(const Chart& c, const Scale& y) {
  std::string out;
  for (int i = 0; i <= 4; ++i) {
    const double v = y.lo + (y.hi - y.lo) * i / 4.0;
    const double py = y(v);
    out += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>", kLeft, py,
                       kWidth - kRight, py);
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ya\">{}</text>", kLeft - 6, py + 4, num(v));
  }
  out += fmt::format("<text x=\"14\" y=\"{}\" class=\"yl\" transform=\"rotate(-90 14 {})\">{}</text>",
                     kTop + (kHeight - kTop - kBottom) / 2, kTop + (kHeight - kTop - kBottom) / 2,
                     html_escape(c.y_label));
  return out;
}

/// The series' names: under a line chart; in the title's line of a bar chart, whose rotated
/// category names take the space under it.
std::string legend(const Chart& c) {
  std::string out;
  const bool top = c.kind == ChartKind::bars;
  double x = top ? kWidth / 2 : kLeft, y = top ? 30 : kHeight - 20;
  for (std::size_t i = 0; i < c.series.size() && c.series.size() > 1; ++i) {
    const double w = 24 + 6.5 * static_cast<double>(c.series[i].name.size());
    if (x + w > kWidth - kRight && x > kLeft) {  // the next row
      x = top ? kWidth / 2 : kLeft;
      y += top ? 12 : -14;  // rows go up, towards the axis label's line, under a line chart
    }
    out += fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"10\" height=\"10\" fill=\"{}\"/>", x, y - 9,
                       colour(i));
    out += fmt::format("<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"lg\">{}</text>", x + 14, y, html_escape(c.series[i].name));
    x += w;
  }
  return out;
}

std::string ref_lines(const Chart& c, const Scale& y) {
  std::string out;
  for (const auto& l : c.lines) {
    if (l.y < y.lo || l.y > y.hi) continue;
    out += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"ref\"><title>{}: {}</title></line>",
                       kLeft, y(l.y), kWidth - kRight, y(l.y), html_escape(l.label), num(l.y));
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"rl\">{}</text>", kWidth - kRight - 4, y(l.y) - 4,
                       html_escape(l.label));
  }
  return out;
}

double top_of(const Chart& c) {
  double hi = 0;
  for (const auto& s : c.series) {
    for (double v : s.values)
      if (std::isfinite(v)) hi = std::max(hi, v);
    for (const auto& [x, v] : s.xy)
      if (std::isfinite(v)) hi = std::max(hi, v);
  }
  for (const auto& l : c.lines) hi = std::max(hi, l.y);
  for (const auto& b : c.bands) hi = std::max(hi, b.high);
  return hi > 0 ? hi * 1.08 : 1;
}

// A bar chart's category names, 10 px, turned 35 degrees and ending under their bar: about 5.6 px
// a character along the text, cos 35 of it leftward and sin 35 of it downward.
constexpr double kGlyph = 5.6, kCos35 = 0.819, kSin35 = 0.574;

Overflow bar_label_overflow(const Chart& c) {
  Overflow o;
  if (c.categories.empty()) return o;
  const double slot = (kWidth - kLeft - kRight) / static_cast<double>(c.categories.size());
  const std::size_t every = std::max<std::size_t>(1, c.categories.size() / 24);
  for (std::size_t i = 0; i < c.categories.size(); i += every) {
    const double along = kGlyph * static_cast<double>(c.categories[i].size());
    const double x = kLeft + slot * (static_cast<double>(i) + 0.5);
    o.left = std::max(o.left, along * kCos35 - x + 4);
    o.bottom = std::max(o.bottom, 14 + along * kSin35 + 4 - kBottom);
  }
  return o;
}

std::string bars(const Chart& c) {
  const Scale y{0, top_of(c), kHeight - kBottom, kTop};
  std::string out = y_axis(c, y);
  const double plot = kWidth - kLeft - kRight, slot = plot / static_cast<double>(c.categories.size());
  const double bar = std::max(1.0, slot * 0.8 / static_cast<double>(std::max<std::size_t>(1, c.series.size())));
  for (std::size_t s = 0; s < c.series.size(); ++s)
    for (std::size_t i = 0; i < c.series[s].values.size() && i < c.categories.size(); ++i) {
      const double v = c.series[s].values[i];
      if (!std::isfinite(v)) continue;
      const double x = kLeft + slot * static_cast<double>(i) + slot * 0.1 + bar * static_cast<double>(s);
      const std::string flag = i < c.series[s].flags.size() ? c.series[s].flags[i] : "";
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"{}><title>{} {}: {}{}</title>"
          "</rect>",
          x, y(v), bar, std::max(0.5, y(0) - y(v)), colour(s), flag.empty() ? "" : " class=\"" + flag + "\"",
          html_escape(c.series[s].name), html_escape(c.categories[i]), num(v), flag.empty() ? "" : " (" + flag + ")");
    }
  for (const auto& b : c.bands) {  // over the bars: the floor dashed, the expected figure solid
    if (b.category >= c.categories.size()) continue;
    const double x0 = kLeft + slot * static_cast<double>(b.category) + slot * 0.02, x1 = x0 + slot * 0.96;
    out += fmt::format(
        "<g class=\"band\"><title>expected {} (floor {})</title><line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
        "y2=\"{:.1f}\" class=\"exp\"/><line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" class=\"flo\"/></g>",
        num(b.high), num(b.low), x0, y(b.high), x1, y(b.high), x0, y(b.low), x1, y(b.low));
  }
  const std::size_t every = std::max<std::size_t>(1, c.categories.size() / 24);
  for (std::size_t i = 0; i < c.categories.size(); i += every) {
    const double x = kLeft + slot * (static_cast<double>(i) + 0.5);
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xa\" transform=\"rotate(-35 {:.1f} {})\">{}</text>", x,
                       kHeight - kBottom + 14, x, kHeight - kBottom + 14, html_escape(c.categories[i]));
  }
  return out + ref_lines(c, y) + legend(c);
}

std::string lines(const Chart& c) {
  double xlo = std::numeric_limits<double>::max(), xhi = std::numeric_limits<double>::lowest();
  for (const auto& s : c.series)
    for (const auto& [x, v] : s.xy) {
      xlo = std::min(xlo, x);
      xhi = std::max(xhi, x);
    }
  if (c.log_x && xlo <= 0) xlo = 1e-9;
  const Scale xs{xlo, xhi, kLeft + 10, kWidth - kRight - 10, c.log_x};
  const Scale y{0, top_of(c), kHeight - kBottom, kTop};
  std::string out = y_axis(c, y);
  for (int i = 0; i <= 4; ++i) {
    const double v = c.log_x ? std::pow(10, std::log10(xlo) + (std::log10(xhi) - std::log10(xlo)) * i / 4.0)
                             : xlo + (xhi - xlo) * i / 4.0;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xt\">{}</text>", xs(v), kHeight - kBottom + 16, num(v));
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xl\">{}</text>", kWidth / 2, kHeight - kBottom + 34,
                     html_escape(c.x_label));
  for (double m : c.marks)
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" class=\"mark\"><title>{3} at {4}"
                       "</title></line>",
                       xs(m), kTop, kHeight - kBottom, html_escape(c.marks_label), num(m));
  for (std::size_t s = 0; s < c.series.size(); ++s) {
    std::string pts;
    for (const auto& [x, v] : c.series[s].xy)
      if (std::isfinite(v)) pts += fmt::format("{:.1f},{:.1f} ", xs(x), y(v));
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"/>", pts, colour(s));
    if (c.series[s].xy.size() <= 40)
      for (const auto& [x, v] : c.series[s].xy)
        if (std::isfinite(v))
          out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>{}: {} at {}</title></circle>",
                             xs(x), y(v), colour(s), html_escape(c.series[s].name), num(v), num(x));
  }
  return out + ref_lines(c, y) + legend(c);
}

std::string heatmap(const Chart& c) {
  double hi = 0;
  for (const auto& r : c.cells)
    for (const auto& v : r)
      if (v) hi = std::max(hi, *v);
  const double cw = (kWidth - kLeft - kRight) / static_cast<double>(std::max<std::size_t>(1, c.categories.size()));
  const double ch = (kHeight - kTop - kBottom) / static_cast<double>(std::max<std::size_t>(1, c.rows.size()));
  std::string out;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"ya\">{}</text>", kLeft - 6, kTop + ch * (r + 0.5) + 4,
                       html_escape(c.rows[r]));
    for (std::size_t k = 0; k < c.categories.size(); ++k) {
      double cell = 0;
      const bool has = r < c.cells.size() && k < c.cells[r].size() && c.cells[r][k].has_value();
      if (has) cell = *c.cells[r][k];
      const std::string text = has ? num(cell) : "-";
      const double x = kLeft + cw * static_cast<double>(k), y = kTop + ch * static_cast<double>(r);
      const double shade = has && hi > 0 ? cell / hi : 0;
      out += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"#fff\"><title>{} to "
          "{}: {}</title></rect>",
          x, y, cw, ch, has ? fmt::format("rgb({},{},{})", static_cast<int>(240 - 200 * shade),
                                        static_cast<int>(245 - 130 * shade), 255)
                          : std::string("#eee"),
          html_escape(c.rows[r]), html_escape(c.categories[k]), text);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"hv\">{}</text>", x + cw / 2, y + ch / 2 + 4, text);
    }
  }
  for (std::size_t k = 0; k < c.categories.size(); ++k)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"xt\">{}</text>", kLeft + cw * (k + 0.5),
                       kHeight - kBottom + 16, html_escape(c.categories[k]));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"xl\">{}</text>", kWidth / 2, kHeight - kBottom + 34,
                     html_escape(c.x_label));
  return out;
}

}  // namespace

bool Chart::drawable() const {
  if (kind == ChartKind::heatmap) return !rows.empty() && !categories.empty();
  for (const auto& s : series) {
    if (kind == ChartKind::bars && !categories.empty())
      for (double v : s.values)
        if (std::isfinite(v)) return true;
    if (kind == ChartKind::lines && !s.xy.empty()) return true;
  }
  return false;
}

std::string render_svg(const Chart& chart) {
  switch (chart.kind) {
    case ChartKind::bars:
      return frame(chart, bars(chart), bar_label_overflow(chart));
    case ChartKind::lines:
      return frame(chart, lines(chart));
    case ChartKind::heatmap:
      return frame(chart, heatmap(chart));
  }
  return {};
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += ch;
    }
  }
  return out;
}

}  // namespace dcukit::flows
