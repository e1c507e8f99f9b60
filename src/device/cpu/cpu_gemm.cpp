// CpuDevice's GEMM through OpenBLAS: fp64 and fp32. Debian's and Ubuntu's OpenBLAS export
// no half-precision or integer GEMM, so those precisions are skipped with that reason.
#include <fmt/format.h>

#include <cstdint>

#include "device/cpu/cpu_backend.h"
#include "device/cpu/openblas.h"

namespace dcukit::device::cpu {

std::string CpuDevice::gemm_unsupported(Precision p) {
  if (p == Precision::fp64 || p == Precision::fp32) return openblas() ? std::string() : openblas().error().message;
  if (p == Precision::tf32) return "tf32 is a GPU matrix-unit mode; the CPU has none";
  return fmt::format("OpenBLAS as packaged has no {} GEMM", to_string(p));
}

Status CpuDevice::gemm(const GemmArgs& g, Stream stream) {
  if (auto st = check(stream); !st) return st;
  if (auto why = gemm_unsupported(g.precision); !why.empty()) return Error{why};
  if (g.m <= 0 || g.n <= 0 || g.k <= 0) return Error{fmt::format("gemm: bad shape {}x{}x{}", g.m, g.n, g.k)};
  const OpenBlas& blas = *openblas();
  // C (m×n, col-major) = Aᵀ (A is k×m col-major) · B (k×n col-major).
  if (g.precision == Precision::fp64)
    blas.dgemm(CblasColMajor, CblasTrans, CblasNoTrans, g.m, g.n, g.k, 1.0, static_cast<const double*>(g.a), g.k,
               static_cast<const double*>(g.b), g.k, 0.0, static_cast<double*>(g.c), g.m);
  else
    blas.sgemm(CblasColMajor, CblasTrans, CblasNoTrans, g.m, g.n, g.k, 1.0f, static_cast<const float*>(g.a), g.k,
               static_cast<const float*>(g.b), g.k, 0.0f, static_cast<float*>(g.c), g.m);
  if (m_gemm_fault > 0 && ++m_gemms >= m_gemm_fault) {  // the test-only fault: a silent wrong number
    // A different element each time, as a real flip would be: two wrong outputs never agree.
    const std::size_t elems = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n);
    const std::size_t mid = (elems / 2 + static_cast<std::size_t>(m_gemms) * 7919u) % elems;
    if (g.precision == Precision::fp64)
      reinterpret_cast<std::uint64_t*>(g.c)[mid] ^= 1ull << 62;
    else
      reinterpret_cast<std::uint32_t*>(g.c)[mid] ^= 1u << 30;
  }
  return {};
}

}  // namespace dcukit::device::cpu
