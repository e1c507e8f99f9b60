#include "util/duration.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace dcukit::util {

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  auto bad = [&] {
    return Error{
        fmt::format("'{}' is not a duration; write a number with ms, s, m or h (\"500ms\", \"5s\", \"20m\")", text)};
  };
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == 0) return bad();
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + end, value);
  if (ec != std::errc() || ptr != text.data() + end || !std::isfinite(value)) return bad();
  const std::string_view unit = text.substr(end);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1000;
  else if (unit == "ms")
    scale = 1;
  else if (unit == "m" || unit == "min")
    scale = 60'000;
  else if (unit == "h")
    scale = 3'600'000;
  else
    return bad();
  const double ms = value * scale;
  if (ms > 1e15) return Error{fmt::format("'{}' is too long a duration", text)};
  return std::chrono::milliseconds(static_cast<long long>(std::llround(ms)));
}

std::string format_duration(std::chrono::milliseconds d) {
  const long long ms = d.count();
  if (ms != 0 && ms % 3'600'000 == 0) return fmt::format("{}h", ms / 3'600'000);
  if (ms != 0 && ms % 60'000 == 0) return fmt::format("{}m", ms / 60'000);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

}  // namespace dcukit::util
