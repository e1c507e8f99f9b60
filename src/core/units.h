#pragma once
// Units: sizes in IEC binary units (MiB, GiB) as users type them, rates in decimal units
// (GB/s, TFLOPS) as vendors publish peaks.
#include <cstdint>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::core {

inline constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

/// "256MiB", "4GiB", "1G" (binary), "65536" (bytes), "1.5GiB". Errors name the text.
Result<std::uint64_t> parse_size(std::string_view text);

/// A plain or SI-suffixed number: "480e12", "1.6T", "63G", "2.5". Errors name the text.
Result<double> parse_number(std::string_view text);

/// 268435456 -> "256 MiB"; exact multiples print without decimals.
std::string format_bytes(std::uint64_t bytes);

/// Bytes per second in decimal units: "4.31 TB/s", "48.6 GB/s".
std::string format_bandwidth(double bytes_per_second);

/// Operations per second: "731.2 TFLOPS" (or TOPS for integer work).
std::string format_ops(double ops_per_second, bool integer = false);


} // namespace dcukit::core
