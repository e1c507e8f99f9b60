#pragma once
// Small text helpers the checks share (util/text.h's, and lines, CPU lists and "key value" files).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/text.h"

namespace dcukit::doctor {

using util::contains;
using util::Empties;
using util::lower;
using util::parse_int;
using util::split;
using util::starts_with;
using util::trim;

/// The lines of a text (without line ends).
std::vector<std::string> lines(std::string_view s);
/// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt when malformed or larger than `limit` entries.
std::optional<std::vector<int>> parse_cpu_list(std::string_view s, std::size_t limit = 1 << 16);
/// {0,1,2,3,8} -> "0-3,8".
std::string format_cpu_list(const std::vector<int>& items);
/// Lines "key: value" (split at the first colon) or, without a colon, "key value" (KFD properties)
/// into a map; the first of a key wins.
std::map<std::string, std::string> key_values(std::string_view text);

}  // namespace dcukit::doctor
