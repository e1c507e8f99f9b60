// libFuzzer target for the size and number parsers every command's flags go through: no input
// may crash them, overflow, or give a size that does not format back.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/units.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto s = dcukit::core::parse_size(text)) {
    if (dcukit::core::format_bytes(*s).empty()) std::abort();
  }
  if (auto n = dcukit::core::parse_number(text)) {
    if (std::isnan(*n)) std::abort();  // a NaN must never pass as a number
    (void)dcukit::core::format_bandwidth(*n);
    (void)dcukit::core::format_ops(*n);
  }
  return 0;
}
