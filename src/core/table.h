#pragma once
// A table as data, rendered as aligned text for a terminal, Markdown for a wiki, or CSV.
// Every command's human-readable output goes through this, so all of them look alike.
#include <cstddef>
#include <string>
#include <vector>

namespace dcukit::core {

enum class Align { left, right };

/// One column: its header and how its cells align.
struct Column {
  std::string header;
  Align align = Align::right;
  /// A figure behind the others (a budget's terms beside its total): where the table is too wide
  /// for the terminal, detail columns are left out first.
  bool detail = false;
};

/// Rows of already-formatted cells under a title; notes print beneath.
struct Table {
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;

  void add_row(std::vector<std::string> cells) { rows.push_back(std::move(cells)); }
};

/// Aligned plain text with a header rule; widths count UTF-8 code points, not bytes. Wider
/// than text_width(), its text columns (left-aligned) are narrowed, their cells wrapped onto
/// more lines; where that is not enough, the last columns are left out and a note says which.
std::string render_text(const Table& table);

/// The width render_text fits tables to; 0 (the default) is no limit.
std::size_t text_width();

/// Sets text_width() on this thread while it lives: the CLI fits what it prints to stdout to the
/// terminal, and a bundle's or a file's copy, rendered outside one, keeps every column whole.
class TextWidth {
public:
  explicit TextWidth(std::size_t width);
  ~TextWidth();
  TextWidth(const TextWidth&) = delete;
  TextWidth& operator=(const TextWidth&) = delete;

private:
  std::size_t m_saved;
};
/// A GitHub-flavoured Markdown table with the title as a heading of the given level.
std::string render_markdown(const Table& table, int heading_level = 3);
/// RFC 4180 CSV: a header line, then one line a row; cells quoted where needed.
std::string render_csv(const Table& table);

} // namespace dcukit::core
