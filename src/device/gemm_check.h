#pragma once
// The GEMM benchmark's check: sampled elements of C against a float64 reference recomputed
// from the inputs' generator, with a tolerance per precision.
#include <cstdint>
#include <string>

#include "device/types.h"

namespace dcukit::device {

struct GemmCheck {
  bool passed = false;
  double max_error = 0;  ///< |c − ref| / Σ|a·b| over the samples (exact match for int8)
  double tolerance = 0;
  int samples = 0;
  std::string summary;  ///< "max err 3.1e-04 <= 2.0e-03 over 256 elements"
};

/// The tolerance for p, relative to Σ_k |a_ik·b_kj|: covers input rounding (tf32), fp32
/// accumulation and output rounding (fp16, bf16). int8 must be exact.
double gemm_tolerance(device::Precision p);

/// Checks `c` (n×n, col-major, p's output format) = Aᵀ·B where A and B were generated with
/// seeds seed_a and seed_b (see data.h). Never-written elements (still poison) fail.
GemmCheck check_gemm(device::Precision p, int n, std::uint64_t seed_a, std::uint64_t seed_b, const void* c);

}  // namespace dcukit::device
