#pragma once
// A parallel for over [0, n) on the host's cores: the CPU backend's only threading.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace dcukit::device::cpu {

/// Calls fn(begin, end) on contiguous chunks, one per worker; small n runs inline.
template <class Fn>
void parallel_for(std::size_t n, Fn&& fn, std::size_t min_chunk = 1 << 16) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min(hw, std::max<std::size_t>(1, n / min_chunk));
  if (workers <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  const std::size_t chunk = (n + workers - 1) / workers;
  for (std::size_t w = 1; w < workers; ++w) {
    const std::size_t b = std::min(n, w * chunk), e = std::min(n, b + chunk);
    threads.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(std::size_t{0}, std::min(n, chunk));
  for (auto& t : threads) t.join();
}

}  // namespace dcukit::device::cpu
