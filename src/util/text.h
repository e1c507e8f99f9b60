#pragma once
// The small text helpers every parser needs: blanks trimmed, ASCII lower case, substring tests
// with and without case, fields split at a separator and whole numbers.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::util {

/// Without leading and trailing white space (std::isspace: space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view s);
/// Lower case (ASCII).
std::string lower(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);
/// contains(), ignoring ASCII case on both sides.
bool icontains(std::string_view s, std::string_view part);

/// Whether split() keeps the empty fields between two separators.
enum class Empties { keep, skip };
/// `s` cut at every `sep`: "a,,b" is {"a", "", "b"} (keep) or {"a", "b"} (skip).
std::vector<std::string> split(std::string_view s, char sep, Empties empties = Empties::keep);

/// A whole number written alone (blanks around it allowed): "42", " -7 "; nullopt for "4.2",
/// "42 MiB", "" or one past long long.
std::optional<long long> parse_int(std::string_view s);

/// `s` safe to write to a terminal: control characters other than tab and newline (ESC, CR,
/// BEL, backspace, DEL, the C1 controls U+0080..U+009F) and bytes that are not UTF-8 become
/// visible escapes ("\x1b", "\u009b"), so that text a server, a file or a source sent cannot
/// move the cursor, retitle the window or clear the screen. Printable UTF-8 is kept.
std::string terminal_safe(std::string_view s);

}  // namespace dcukit::util
