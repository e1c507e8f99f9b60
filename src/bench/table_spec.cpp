#include "bench/table_spec.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "core/units.h"

namespace dcukit::bench {

core::Table make_table(const TableSpec& spec, const std::vector<const Measurement*>& measurements) {
  core::Table t;
  t.title = spec.title;
  std::vector<ColumnSpec> columns;
  for (const auto& c : spec.columns) columns.push_back(c.resolve ? c.resolve(measurements) : c);
  for (const auto& c : columns) t.columns.push_back({c.header, c.align});
  for (const auto* m : measurements) {
    std::vector<std::string> row;
    row.reserve(columns.size());
    for (const auto& c : columns) row.push_back(c.cell(*m));
    t.add_row(std::move(row));
  }
  if (spec.peak_notes) {
    std::set<std::string> seen;
    for (const auto* m : measurements)
      if (!m->peak_note.empty() && seen.insert(m->peak_note).second) t.notes.push_back(m->peak_note);
  }
  t.notes.insert(t.notes.end(), spec.notes.begin(), spec.notes.end());
  for (const auto* m : measurements)
    if (m->placed.placement == core::Placement::low)
      t.notes.push_back(fmt::format("{} is low: {:.2f}x of the {} expected ({}); likely: {}", m->name,
                                    m->placed.ratio(), m->placed.sku, m->placed.source,
                                    fmt::join(m->placed.causes, "; ")));
  if (spec.summary)
    for (auto& n : spec.summary(measurements)) t.notes.push_back(std::move(n));
  return t;
}

std::vector<core::Table> make_tables(const TableSpec& spec, const std::vector<const Measurement*>& measurements) {
  std::vector<core::Table> out{make_table(spec, measurements)};
  if (spec.more)
    for (auto& t : spec.more(measurements)) out.push_back(std::move(t));
  return out;
}

ColumnSpec text_column(std::string header, std::string key, bool or_name) {
  return {std::move(header), core::Align::left, [key = std::move(key), or_name](const Measurement& m) {
            std::string v = m.text(key);
            return v.empty() && or_name ? m.name : v;
          }};
}

ColumnSpec name_column(std::string header) {
  return {std::move(header), core::Align::left, [](const Measurement& m) { return m.name; }};
}

ColumnSpec integer_column(std::string header, std::string key) {
  return {std::move(header), core::Align::right, [key = std::move(key)](const Measurement& m) {
            const auto v = m.integer(key);
            return v ? std::to_string(*v) : std::string("-");
          }};
}

ColumnSpec bytes_column(std::string header, std::string key) {
  return {std::move(header), core::Align::right, [key = std::move(key)](const Measurement& m) {
            const auto v = m.integer(key);
            return v && *v >= 0 ? core::format_bytes(static_cast<std::uint64_t>(*v)) : std::string("-");
          }};
}

ColumnSpec time_column(std::string header, double core::Summary::*statistic, double scale) {
  return {std::move(header), core::Align::right, [statistic, scale](const Measurement& m) {
            return m.samples_ms.empty() ? std::string("-") : fmt::format("{:.4g}", m.time_ms.*statistic * scale);
          }};
}

ColumnSpec rate_column(std::string header, double divisor, int decimals) {
  return {std::move(header), core::Align::right, [divisor, decimals](const Measurement& m) {
            if (m.outcome != Outcome::ok) return std::string("-");
            return fmt::format("{:.{}f}", m.rate / divisor, decimals);
          }};
}

ColumnSpec scaled_rate_column(std::string unit, int decimals) {
  ColumnSpec c{unit, core::Align::right, nullptr};
  c.resolve = [unit, decimals](const std::vector<const Measurement*>& ms) {
    double top = 0;
    for (const auto* m : ms)
      if (m->outcome == Outcome::ok) top = std::max(top, m->rate);
    const auto [prefix, divisor] = top >= 1e12 ? std::pair{"T", 1e12} : top >= 1e9 ? std::pair{"G", 1e9}
                                                                                  : std::pair{"M", 1e6};
    return rate_column(prefix + unit, divisor, decimals);
  };
  return c;
}

ColumnSpec percent_column(std::string header) {
  return {std::move(header), core::Align::right, [](const Measurement& m) {
            const auto p = m.percent_of_peak();
            return p ? fmt::format("{:.1f}%", *p) : std::string("-");
          }};
}

ColumnSpec placement_column(std::string header) {
  return {std::move(header), core::Align::left, [](const Measurement& m) {
            if (m.outcome != Outcome::ok) return std::string("-");
            return core::placement_text(m.placed.placement, m.placed.ratio());
          }};
}

ColumnSpec status_column() {
  return {"status", core::Align::left, [](const Measurement& m) {
            if (m.outcome == Outcome::ok) return std::string("ok");
            return fmt::format("{}: {}", to_string(m.outcome), m.reason);
          }};
}

}  // namespace dcukit::bench
