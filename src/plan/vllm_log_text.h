#pragma once
// Small readers for the text of vLLM log lines: a number after a marker (with thousands commas),
// and a setting in any of the forms vLLM prints or users type (key=V, 'key': V, --key V).
// Plain string scanning: engine-config lines run to thousands of characters, where std::regex
// recurses per character.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dcukit::plan::logtext {

/// The number at or after `pos`, skipping spaces, '(', '=' and ':'; "412,944" reads as 412944,
/// "-1.23" as -1.23 (vLLM prints a negative KV budget as it computed it).
std::optional<double> number_at(std::string_view s, std::size_t pos);

/// The number right after the first `marker` in `line`.
std::optional<double> number_after(std::string_view line, std::string_view marker);

/// The number written right before the first `marker` in `line` ("5.58 GiB for peak activation"
/// with marker " GiB for peak activation").
std::optional<double> number_before(std::string_view line, std::string_view marker);

/// The value of setting `key` (snake_case) written as key=V, 'key': V, "key": V, --key V, --key=V
/// or --key-with-dashes V, or an argparse abbreviation of the long option (--max-num-batched-token V).
/// Quotes are stripped. A bare --key switch reads as "True".
std::optional<std::string> setting(std::string_view line, std::string_view key);

/// "True"/"true"/"1" → true, "False"/"false"/"0" → false, else empty.
std::optional<bool> to_bool(const std::optional<std::string>& text);

/// The number in `text`, or empty.
std::optional<double> to_number(const std::optional<std::string>& text);

/// `line` without the time stamp a log collector put before vLLM's own record: Docker's
/// "2026-05-01T20:44:30.355123Z ", a compose/console "2026-05-01 22:44:30.355 | ". Other lines as they are.
std::string_view drop_collector_stamp(std::string_view line);

/// Lines of the log part of `text` (after the collector's "# ---- verbatim log lines below ----"
/// header where there is one): lines a terminal wrapped joined, records a copy-paste ran together
/// split again, collectors' time stamps dropped. Each keeps its 1-based line number in the file.
std::vector<std::pair<int, std::string>> log_lines(std::string_view text);

/// True when `line` contains `what`.
inline bool has(std::string_view line, std::string_view what) {
  return line.find(what) != std::string_view::npos;
}

}  // namespace dcukit::plan::logtext
