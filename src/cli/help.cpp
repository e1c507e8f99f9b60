#include "cli/help.h"

#include <unistd.h>

#include <algorithm>

#include "util/terminal.h"

namespace dcukit::cli {
namespace {

constexpr std::size_t kHelpColumns = 80, kColumn = 30;

/// A line CLI11 laid out as "  NAME<blanks>DESCRIPTION", or a description's continuation.
bool in_columns(const std::string& line, std::size_t column) {
  return line.size() > column && line.compare(0, 2, "  ") == 0 && line[column - 1] == ' ' &&
         line[column] != ' ';
}

}  // namespace

HelpFormatter::HelpFormatter(std::size_t width) : m_width(width) {
  column_width(kColumn);
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  std::size_t width = m_width;
  if (width == 0) {
    const std::size_t term = util::output_width(STDOUT_FILENO, false);
    width = term == 0 ? kHelpColumns : std::clamp<std::size_t>(term, kColumn + 20, kHelpColumns);
  }
  return wrap_help(CLI::Formatter::make_help(app, std::move(name), mode), width, kColumn);
}

std::string wrap_help(const std::string& text, std::size_t width, std::size_t column) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (util::display_width(line) <= width) {
      out += line + "\n";
    } else if (in_columns(line, column) && width > column + 10) {
      const auto parts = util::wrap_words(line.substr(column), width - column);
      for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i ? std::string(column, ' ') : line.substr(0, column)) + parts[i] + "\n";
    } else {
      out += util::fit_lines(line, width) + "\n";
    }
  }
  if (!text.empty() && text.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

}  // namespace dcukit::cli
