#include "core/table.h"

#include <algorithm>
#include <fmt/format.h>

#include "util/terminal.h"

namespace dcukit::core {
namespace {

using util::display_width;

thread_local std::size_t t_text_width = 0;

/// A column narrower than this is not narrowed further (nor below its header).
constexpr std::size_t kMinColumn = 16;

std::string pad(const std::string& s, std::size_t width, Align align) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  const std::string fill(width - w, ' ');
  return align == Align::left ? s + fill : fill + s;
}

std::string cell(const Table& t, std::size_t row, std::size_t col) {
  return col < t.rows[row].size() ? t.rows[row][col] : std::string();
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

/// Narrows the widest text columns, a column at a time, until the row fits `limit`; then leaves
/// out columns, detail ones first, each kind from the right. Returns the columns shown, in order.
std::vector<std::size_t> fit_columns(const Table& t, std::vector<std::size_t>& width, std::size_t limit) {
  const std::size_t n = width.size();
  std::vector<std::size_t> shown(n);
  for (std::size_t c = 0; c < n; ++c) shown[c] = c;
  auto total = [&] {
    std::size_t sum = shown.empty() ? 0 : 2 * (shown.size() - 1);
    for (std::size_t c : shown) sum += width[c];
    return sum;
  };
  // Only text (left-aligned, with words to wrap at) narrows: a bus id or a figure stays whole.
  std::vector<std::size_t> floor(width);
  for (std::size_t c = 0; c < n; ++c) {
    bool words = false;
    for (std::size_t r = 0; r < t.rows.size() && !words; ++r) words = cell(t, r, c).find(' ') != std::string::npos;
    if (t.columns[c].align == Align::left && words)
      floor[c] = std::min(width[c], std::max(kMinColumn, display_width(t.columns[c].header)));
  }
  while (total() > limit) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c)
      if (width[c] > floor[c] && (widest == n || width[c] > width[widest])) widest = c;
    if (widest == n) break;
    --width[widest];
  }
  for (const bool detail : {true, false})
    for (std::size_t i = shown.size(); i-- > 1 && total() > limit;)
      if (t.columns[shown[i]].detail == detail) shown.erase(shown.begin() + static_cast<std::ptrdiff_t>(i));
  return shown;
}

/// One row's cells, each wrapped to its column, as the lines they take.
std::vector<std::string> row_lines(const std::vector<std::string>& cells, const Table& t,
                                   const std::vector<std::size_t>& width, const std::vector<std::size_t>& shown) {
  std::vector<std::vector<std::string>> parts;
  std::size_t height = 1;
  for (std::size_t c : shown) {
    const std::string v = c < cells.size() ? cells[c] : std::string();
    parts.push_back(display_width(v) <= width[c] ? std::vector<std::string>{v} : util::wrap_words(v, width[c]));
    height = std::max(height, parts.back().size());
  }
  std::vector<std::string> out(height);
  for (std::size_t l = 0; l < height; ++l) {
    for (std::size_t i = 0; i < shown.size(); ++i) {
      if (i) out[l] += "  ";
      out[l] += pad(l < parts[i].size() ? parts[i][l] : std::string(), width[shown[i]], t.columns[shown[i]].align);
    }
    while (!out[l].empty() && out[l].back() == ' ') out[l].pop_back();
  }
  return out;
}

}  // namespace

std::size_t text_width() {
  return t_text_width;
}

TextWidth::TextWidth(std::size_t width) : m_saved(t_text_width) {
  t_text_width = width;
}

TextWidth::~TextWidth() {
  t_text_width = m_saved;
}

std::string render_text(const Table& t) {
  std::vector<std::size_t> width(t.columns.size());
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    width[c] = display_width(t.columns[c].header);
    for (std::size_t r = 0; r < t.rows.size(); ++r) width[c] = std::max(width[c], display_width(cell(t, r, c)));
  }
  const std::size_t limit = text_width();
  std::vector<std::size_t> shown(width.size());
  for (std::size_t c = 0; c < shown.size(); ++c) shown[c] = c;
  if (limit > 0) shown = fit_columns(t, width, limit);
  std::string out;
  if (!t.title.empty()) out += util::fit_lines(t.title, limit) + "\n";
  std::vector<std::string> head;
  for (const auto& c : t.columns) head.push_back(c.header);
  std::string rule;
  for (std::size_t i = 0; i < shown.size(); ++i) rule += (i ? "  " : "") + std::string(width[shown[i]], '-');
  for (const auto& l : row_lines(head, t, width, shown)) out += l + "\n";
  out += rule + "\n";
  for (const auto& row : t.rows)
    for (const auto& l : row_lines(row, t, width, shown)) out += l + "\n";
  std::vector<std::string> notes = t.notes;
  if (shown.size() < t.columns.size()) {
    std::string left_out;
    for (std::size_t c = 0, i = 0; c < t.columns.size(); ++c) {
      if (i < shown.size() && shown[i] == c) {
        ++i;
        continue;
      }
      left_out += (left_out.empty() ? "" : ", ") + (t.columns[c].header.empty() ? "(unnamed)" : t.columns[c].header);
    }
    notes.push_back(fmt::format("{} column(s) left out to fit {} columns ({}): --wide or COLUMNS=N shows them",
                                t.columns.size() - shown.size(), limit, left_out));
  }
  for (const auto& n : notes) out += util::fit_lines("  " + n, limit) + "\n";
  return out;
}

std::string render_markdown(const Table& t, int heading_level) {
  std::string out;
  if (!t.title.empty()) out += std::string(static_cast<std::size_t>(std::max(1, heading_level)), '#') + " " + t.title + "\n\n";
  std::string head = "|", rule = "|";
  for (const auto& c : t.columns) {
    head += " " + c.header + " |";
    rule += c.align == Align::right ? " ---: |" : " --- |";
  }
  out += head + "\n" + rule + "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    std::string line = "|";
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      std::string v = cell(t, r, c);
      std::string esc;
      for (char ch : v) esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
      line += " " + esc + " |";
    }
    out += line + "\n";
  }
  if (!t.notes.empty()) {
    out += "\n";
    for (const auto& n : t.notes) out += "- " + n + "\n";
  }
  return out;
}

std::string render_csv(const Table& t) {
  std::string out;
  auto add = [&out](std::size_t c, const std::string& v) {
    if (c) out += ',';
    out += csv_escape(v);
  };
  for (std::size_t c = 0; c < t.columns.size(); ++c) add(c, t.columns[c].header);
  out += "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    for (std::size_t c = 0; c < t.columns.size(); ++c) add(c, cell(t, r, c));
    out += "\n";
  }
  return out;
}

} // namespace dcukit::core
