#include "bench/pattern.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "core/numeric.h"
#include "device/cpu/parallel.h"

namespace dcukit::bench {
namespace {

std::uint64_t word(std::uint64_t seed, std::size_t index) {
  return core::splitmix64(seed ^ (index * 0x9E3779B97F4A7C15ull));
}

// First mismatching word in [begin, end) of a buffer whose word 0 is word `offset`.
long long first_mismatch(const std::uint64_t* p, std::size_t offset, std::size_t count, std::uint64_t seed) {
  for (std::size_t i = 0; i < count; ++i)
    if (p[i] != word(seed, offset + i)) return static_cast<long long>(offset + i);
  return -1;
}

}  // namespace

void fill_pattern(void* dst, std::size_t bytes, std::uint64_t seed) {
  auto* p = static_cast<std::uint64_t*>(dst);
  device::cpu::parallel_for(bytes / 8, [=](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) p[i] = word(seed, i);
  });
}

bool check_host_pattern(const void* data, std::size_t bytes, std::uint64_t seed, std::string& summary) {
  const auto* p = static_cast<const std::uint64_t*>(data);
  std::atomic<long long> bad{-1};
  device::cpu::parallel_for(bytes / 8, [&](std::size_t b, std::size_t e) {
    const long long at = first_mismatch(p + b, b, e - b, seed);
    if (at >= 0) bad = at;
  });
  summary = bad < 0 ? fmt::format("all {} bytes match", bytes)
                    : fmt::format("host byte {} differs from what was sent", bad * 8);
  return bad < 0;
}

bool check_device_pattern(device::Device& b, device::Stream stream, const void* data, std::size_t bytes,
                          std::uint64_t seed, std::chrono::milliseconds timeout, std::string& summary) {
  const std::size_t words = bytes / 8, chunk = std::min<std::size_t>(words, 8192);
  std::vector<std::uint64_t> host(chunk);
  constexpr int kChunks = 16;
  for (int i = 0; i < kChunks; ++i) {
    const std::size_t start = words <= chunk ? 0 : (words - chunk) * static_cast<std::size_t>(i) / (kChunks - 1);
    if (auto st = b.copy(host.data(), static_cast<const std::uint64_t*>(data) + start, chunk * 8, stream); !st) {
      summary = st.message();
      return false;
    }
    if (auto st = b.synchronize(timeout); !st) {
      summary = st.message();
      return false;
    }
    if (long long at = first_mismatch(host.data(), start, chunk, seed); at >= 0) {
      summary = fmt::format("device byte {} differs from what was sent", at * 8);
      return false;
    }
  }
  summary = fmt::format("{} chunks of {} read back match", kChunks, chunk * 8);
  return true;
}

}  // namespace dcukit::bench
