#pragma once
// A byte pattern for copies (nvbandwidth's memcmpPattern): every 8-byte word holds a hash of
// its offset, so a copy that drops, repeats or shifts data is caught.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "device/backend.h"

namespace dcukit::bench {

/// Writes the pattern for `seed` over bytes (a multiple of 8), on all cores.
void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed);

/// Checks a host buffer holds the pattern (all of it); sets `summary`.
bool check_host_pattern(const void* data, std::size_t bytes, std::uint64_t seed, std::string& summary);

/// Reads back 16 chunks of a device buffer and checks them; sets `summary`.
bool check_device_pattern(device::Device& b, device::Stream stream, const void* data, std::size_t bytes,
                          std::uint64_t seed, std::chrono::milliseconds timeout, std::string& summary);

}  // namespace dcukit::bench
