#pragma once
// Text that fits a terminal: its width as a person sees it (UTF-8 code points), word wrapping
// with a hanging indent, and the width to fit: --wide, COLUMNS, or the terminal's own.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::util {

/// Columns `s` takes on a terminal: UTF-8 code points (every one taken as one column).
std::size_t display_width(std::string_view s);

/// `text` cut into lines of at most `width` columns at spaces; a word longer than a line is cut
/// where the line ends. Width 0: one line, untouched. Empty text: one empty line.
std::vector<std::string> wrap_words(std::string_view text, std::size_t width);

/// Every line of `text` longer than `width` wrapped, its continuation lines indented under the
/// line's text (after its leading blanks and a "* ", "- " or "+ " bullet). Width 0: untouched.
std::string fit_lines(std::string_view text, std::size_t width);

/// The width of the terminal open on `fd` (TIOCGWINSZ); 0 when `fd` is not a terminal.
std::size_t terminal_columns(int fd);

/// The width to fit output for `fd` to: 0 (none) with `wide`; else COLUMNS when it is a whole
/// number from 20 to 10000; else the terminal's width; 0 when `fd` is not a terminal.
std::size_t output_width(int fd, bool wide);

}  // namespace dcukit::util
