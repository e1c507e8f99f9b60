#include "util/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace dcukit::util {
namespace {

/// The byte offset of the first `columns` code points of `s` (all of it when shorter).
std::size_t prefix_bytes(std::string_view s, std::size_t columns) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (seen == columns) return i;
    ++seen;
  }
  return s.size();
}

/// Leading blanks and a bullet: what a wrapped line's continuation is indented by.
std::size_t hanging_indent(std::string_view line) {
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos) return 0;
  if (i + 1 < line.size() && (line[i] == '*' || line[i] == '-' || line[i] == '+') && line[i + 1] == ' ') i += 2;
  return i;
}

}  // namespace

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::vector<std::string> wrap_words(std::string_view text, std::size_t width) {
  if (width == 0 || display_width(text) <= width) return {std::string(text)};
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', pos);
    if (start == std::string_view::npos) break;
    std::size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    pos = end;
    const std::size_t room = line.empty() ? width : width - std::min(width, display_width(line) + 1);
    if (display_width(word) <= room) {
      line += (line.empty() ? "" : " ") + std::string(word);
      continue;
    }
    if (!line.empty()) lines.push_back(std::move(line)), line.clear();
    while (display_width(word) > width) {  // a word wider than a line: cut it
      const std::size_t cut = prefix_bytes(word, width);
      lines.emplace_back(word.substr(0, cut));
      word.remove_prefix(cut);
    }
    line = std::string(word);
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string fit_lines(std::string_view text, std::size_t width) {
  if (width == 0) return std::string(text);
  std::string out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    const bool last = nl == std::string_view::npos;
    if (last) nl = text.size();
    const std::string_view line = text.substr(pos, nl - pos);
    if (display_width(line) <= width) {
      out += line;
    } else {
      std::size_t indent = hanging_indent(line);
      if (indent + 20 > width) indent = 0;  // no room to indent: wrap at the margin
      const std::string pad(indent, ' ');
      const auto parts = wrap_words(line.substr(indent), width - indent);
      for (std::size_t i = 0; i < parts.size(); ++i)
        out += (i ? "\n" + pad : std::string(line.substr(0, indent))) + parts[i];
    }
    if (last) break;
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

std::size_t terminal_columns(int fd) {
  if (::isatty(fd) == 0) return 0;
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0) return 80;
  return ws.ws_col;
}

std::size_t output_width(int fd, bool wide) {
  if (wide) return 0;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    std::size_t n = 0;
    const std::string_view s(c);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && end == s.data() + s.size() && n >= 20 && n <= 10000) return n;
  }
  return terminal_columns(fd);
}

}  // namespace dcukit::util
