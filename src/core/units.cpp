#include "core/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "util/text.h"

namespace dcukit::core {
namespace {

// Splits "1.5GiB" into 1.5 and "GiB"; false when no number leads.
bool split_number(std::string_view text, double& value, std::string& suffix) {
  const std::string t(util::trim(text));
  std::size_t used = 0;
  try {
    value = std::stod(t, &used);
  } catch (...) {
    return false;
  }
  suffix = std::string(util::trim(std::string_view(t).substr(used)));
  return std::isfinite(value);
}

} // namespace

Result<std::uint64_t> parse_size(std::string_view text) {
  double v = 0;
  std::string suffix;
  if (!split_number(text, v, suffix) || v < 0)
    return Error{fmt::format("'{}' is not a size: write a number with an optional unit, such as 256MiB or 4GiB", text)};
  const std::string s = util::lower(suffix);
  double mult = 0;
  if (s.empty() || s == "b") mult = 1;
  else if (s == "k" || s == "kb" || s == "kib") mult = kKiB;
  else if (s == "m" || s == "mb" || s == "mib") mult = kMiB;
  else if (s == "g" || s == "gb" || s == "gib") mult = kGiB;
  else if (s == "t" || s == "tb" || s == "tib") mult = static_cast<double>(kGiB) * 1024;
  else
    return Error{fmt::format("'{}' has an unknown unit '{}': use B, KiB, MiB, GiB or TiB", text, suffix)};
  const double bytes = std::round(v * mult);
  if (bytes >= 9.2e18)  // past what 64-bit sizes hold (8 EiB): no real buffer is that large
    return Error{fmt::format("'{}' is too large a size: at most 8 EiB", text)};
  return static_cast<std::uint64_t>(bytes);
}

Result<double> parse_number(std::string_view text) {
  double v = 0;
  std::string suffix;
  if (!split_number(text, v, suffix))
    return Error{fmt::format("'{}' is not a number (examples: 480e12, 1.6T, 63G)", text)};
  if (suffix.empty()) return v;
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'k': case 'K': return v * 1e3;
      case 'M': return v * 1e6;
      case 'G': case 'g': return v * 1e9;
      case 'T': case 't': return v * 1e12;
      case 'P': case 'p': return v * 1e15;
      default: break;
    }
  }
  return Error{fmt::format("'{}' has an unknown suffix '{}': use k, M, G, T or P", text, suffix)};
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (v == std::floor(v)) return fmt::format("{:.0f} {}", v, kUnits[u]);
  return fmt::format("{:.2f} {}", v, kUnits[u]);
}

std::string format_bandwidth(double bps) {
  if (bps >= 1e12) return fmt::format("{:.2f} TB/s", bps / 1e12);
  if (bps >= 1e9) return fmt::format("{:.1f} GB/s", bps / 1e9);
  if (bps >= 1e6) return fmt::format("{:.1f} MB/s", bps / 1e6);
  return fmt::format("{:.0f} B/s", bps);
}

std::string format_ops(double ops, bool integer) {
  const char* unit = integer ? "OPS" : "FLOPS";
  if (ops >= 1e12) return fmt::format("{:.1f} T{}", ops / 1e12, unit);
  if (ops >= 1e9) return fmt::format("{:.1f} G{}", ops / 1e9, unit);
  return fmt::format("{:.1f} M{}", ops / 1e6, unit);
}

} // namespace dcukit::core
