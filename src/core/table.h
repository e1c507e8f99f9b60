#pragma once
// A table as data, rendered as aligned text for a terminal, Markdown for a wiki, or CSV.
// Every command's human-readable output goes through this, so all of them look alike.
#include <string>
#include <vector>

namespace dcukit::core {

enum class Align { left, right };

/// One column: its header and how its cells align.
struct Column {
  std::string header;
  Align align = Align::right;
};

/// Rows of already-formatted cells under a title; notes print beneath.
struct Table {
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;

  void add_row(std::vector<std::string> cells) { rows.push_back(std::move(cells)); }
};

/// Aligned plain text with a header rule; widths count UTF-8 code points, not bytes.
std::string render_text(const Table& table);
/// A GitHub-flavoured Markdown table with the title as a heading of the given level.
std::string render_markdown(const Table& table, int heading_level = 3);
/// RFC 4180 CSV: a header line, then one line a row; cells quoted where needed.
std::string render_csv(const Table& table);

} // namespace dcukit::core
