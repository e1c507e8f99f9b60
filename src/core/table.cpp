#include "core/table.h"

#include <algorithm>
#include <fmt/format.h>

namespace dcukit::core {
namespace {

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

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

} // namespace

std::string render_text(const Table& t) {
  std::vector<std::size_t> width(t.columns.size());
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    width[c] = display_width(t.columns[c].header);
    for (std::size_t r = 0; r < t.rows.size(); ++r) width[c] = std::max(width[c], display_width(cell(t, r, c)));
  }
  std::string out;
  if (!t.title.empty()) out += t.title + "\n";
  std::string line, rule;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    if (c) line += "  ", rule += "  ";
    line += pad(t.columns[c].header, width[c], t.columns[c].align);
    rule += std::string(width[c], '-');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out += line + "\n" + rule + "\n";
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    line.clear();
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (c) line += "  ";
      line += pad(cell(t, r, c), width[c], t.columns[c].align);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  for (const auto& n : t.notes) out += "  " + n + "\n";
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
