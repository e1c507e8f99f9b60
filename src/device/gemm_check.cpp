#include "device/gemm_check.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "device/gemm_data.h"
#include "core/numeric.h"

namespace dcukit::device {


double gemm_tolerance(Precision p) {
  switch (p) {
    case Precision::fp64:
      return 1e-12;
    case Precision::fp32:
      return 1e-5;
    case Precision::tf32:
      return 4e-3;
    case Precision::fp16:
      return 2e-3;
    case Precision::bf16:
      return 1e-2;
    case Precision::fp8:
      return 1e-3;
    case Precision::int8:
      return 0;
  }
  return 0;
}

GemmCheck check_gemm(Precision p, int n, std::uint64_t seed_a, std::uint64_t seed_b, const void* c) {
  GemmCheck r;
  r.tolerance = gemm_tolerance(p);
  // The four corners, then pseudo-random elements.
  std::vector<std::pair<int, int>> at = {{0, 0}, {n - 1, 0}, {0, n - 1}, {n - 1, n - 1}};
  for (std::uint64_t s = 0; at.size() < 256; ++s) {
    const std::uint64_t h = core::splitmix64(seed_a * 7919 + s);
    at.emplace_back(static_cast<int>(h % static_cast<std::uint64_t>(n)),
                    static_cast<int>((h >> 32) % static_cast<std::uint64_t>(n)));
  }
  const auto un = static_cast<std::uint64_t>(n);
  bool bad = false;
  std::string first_bad;
  for (auto [i, j] : at) {
    double ref = 0, mag = 0;
    for (std::uint64_t k = 0; k < un; ++k) {
      const double prod = element_value(p, seed_a, k + static_cast<std::uint64_t>(i) * un) *
                          element_value(p, seed_b, k + static_cast<std::uint64_t>(j) * un);
      ref += prod;
      mag += std::fabs(prod);
    }
    const double got =
        output_value(p, c, static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * static_cast<std::size_t>(n));
    const double err = std::isfinite(got) ? std::fabs(got - ref) / std::max(mag, 1e-300) : INFINITY;
    if (!(err <= r.tolerance) && !bad) {
      bad = true;
      first_bad = fmt::format("C[{},{}] = {:.6g}, expected {:.6g}", i, j, got, ref);
    }
    r.max_error = std::max(r.max_error, err);
    ++r.samples;
  }
  r.passed = !bad;
  r.summary = r.passed ? fmt::format("max err {:.1e} <= {:.1e} over {} elements", r.max_error, r.tolerance, r.samples)
                       : fmt::format("{} (max err {:.1e} > {:.1e})", first_bad, r.max_error, r.tolerance);
  return r;
}

}  // namespace dcukit::device
