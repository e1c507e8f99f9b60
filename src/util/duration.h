#pragma once
// Durations as people type them in flags and option files: "500ms", "5s", "20m", "1h", "1.5s",
// or a bare number of seconds ("30"). One parser, so that guard's flags, its options file and
// patrol's --watch read time the same way.
#include <chrono>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::util {

/// Parses a non-negative duration with an optional unit (ms, s, m, h; none means seconds).
/// The error names the text and the accepted forms.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

/// The shortest exact form: 1500ms -> "1500ms", 120000ms -> "2m", 5000ms -> "5s".
std::string format_duration(std::chrono::milliseconds d);

/// Seconds as a double, for JSON and metrics.
inline double seconds(std::chrono::milliseconds d) {
  return static_cast<double>(d.count()) / 1000.0;
}

}  // namespace dcukit::util
