#include "bench/stream_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dcukit::bench {
namespace {

using device::Precision;

constexpr std::size_t kChunk = 16384;  // elements per chunk read back
constexpr int kChunks = 16;

// Reads kChunks chunks (first, last, and evenly spread) and returns max relative error.
Result<double> max_error(device::Device& b, device::Stream stream, Precision t, const void* data, std::size_t n,
                         double expected, std::chrono::milliseconds timeout) {
  const std::size_t elem = t == Precision::fp64 ? 8 : 4;
  const std::size_t len = std::min(kChunk, n);
  std::vector<char> host(len * elem);
  double worst = 0;
  for (int i = 0; i < kChunks; ++i) {
    const std::size_t start = n <= len ? 0 : (n - len) * static_cast<std::size_t>(i) / (kChunks - 1);
    const char* src = static_cast<const char*>(data) + start * elem;
    if (auto st = b.copy(host.data(), src, len * elem, stream); !st) return st.error();
    if (auto st = b.synchronize(timeout); !st) return st.error();
    for (std::size_t k = 0; k < len; ++k) {
      const double v = t == Precision::fp64 ? reinterpret_cast<const double*>(host.data())[k]
                                            : reinterpret_cast<const float*>(host.data())[k];
      const double err = std::isfinite(v) ? std::fabs(v - expected) / std::max(std::fabs(expected), 1e-30) : INFINITY;
      worst = std::max(worst, err);
    }
  }
  return worst;
}

double tolerance(Precision t) {
  return t == Precision::fp64 ? 1e-12 : 1e-5;
}

}  // namespace

ArrayCheck check_array(device::Device& b, device::Stream stream, Precision t, const void* data, std::size_t n,
                       double expected, std::chrono::milliseconds timeout) {
  auto e = max_error(b, stream, t, data, n, expected, timeout);
  if (!e) return {false, e.error().message};
  const bool ok = *e <= tolerance(t);
  return {ok, fmt::format("{} chunks of {} elements: max rel err {:.1e} (limit {:.0e})", kChunks, std::min(kChunk, n),
                          *e, tolerance(t))};
}

template <class T>
static void replay(int iterations, double& ga, double& gb, double& gc) {
  T a = static_cast<T>(0.1), b = static_cast<T>(0.2), c = static_cast<T>(0.0);
  const T s = static_cast<T>(0.4);
  for (int i = 0; i < iterations; ++i) {
    c = a;
    b = s * c;
    c = a + b;
    a = b + s * c;
  }
  ga = a, gb = b, gc = c;
}

ArrayCheck check_stream(device::Device& b, device::Stream stream, Precision t, const void* a, const void* bb,
                        const void* c, std::size_t n, int iterations, double dot, std::chrono::milliseconds timeout) {
  double ga = 0, gb = 0, gc = 0;
  if (t == Precision::fp64)
    replay<double>(iterations, ga, gb, gc);
  else
    replay<float>(iterations, ga, gb, gc);
  double worst = 0;
  for (auto [ptr, gold] : {std::pair{a, ga}, {bb, gb}, {c, gc}}) {
    auto e = max_error(b, stream, t, ptr, n, gold, timeout);
    if (!e) return {false, e.error().message};
    worst = std::max(worst, *e);
  }
  // Dot sums n products: the device's summation order differs from any host order.
  const double gold_dot = ga * gb * static_cast<double>(n);
  const double dot_err = std::fabs(dot - gold_dot) / std::max(std::fabs(gold_dot), 1e-30);
  const double dot_limit = t == Precision::fp64 ? 1e-8 : 1e-3;
  const bool ok = worst <= tolerance(t) && dot_err <= dot_limit;
  return {ok,
          fmt::format("a, b, c after {} rounds: max rel err {:.1e} (limit {:.0e}); dot rel err {:.1e} (limit {:.0e})",
                      iterations, worst, tolerance(t), dot_err, dot_limit)};
}

}  // namespace dcukit::bench
