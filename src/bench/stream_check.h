#pragma once
// Checks for the memory benchmark (BabelStream's check_solution): sampled chunks of each
// device array are read back and compared with values replayed on the host.
#include <chrono>
#include <string>

#include "device/backend.h"

namespace dcukit::bench {

struct ArrayCheck {
  bool passed = false;
  std::string summary;
};

/// Reads back chunks spread over `data` (n elements of fp32/fp64) and checks every element
/// equals `expected` within the type's rounding.
ArrayCheck check_array(device::Device& b, device::Stream stream, device::Precision t, const void* data, std::size_t n,
                       double expected, std::chrono::milliseconds timeout);

/// Replays `iterations` rounds of copy, scale, add, triad on the host from BabelStream's
/// start values, then checks sampled elements of a, b and c, and the last dot product.
ArrayCheck check_stream(device::Device& b, device::Stream stream, device::Precision t, const void* a, const void* bb,
                        const void* c, std::size_t n, int iterations, double dot, std::chrono::milliseconds timeout);

}  // namespace dcukit::bench
