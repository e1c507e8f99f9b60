#pragma once
// The small text helpers every parser needs: blanks trimmed, ASCII lower case, and substring
// tests, with and without case.
#include <string>
#include <string_view>

namespace dcukit::util {

/// Without leading and trailing white space (std::isspace: space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view s);
/// Lower case (ASCII).
std::string lower(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);
/// contains(), ignoring ASCII case on both sides.
bool icontains(std::string_view s, std::string_view part);

}  // namespace dcukit::util
