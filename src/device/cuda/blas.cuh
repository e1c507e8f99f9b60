#pragma once
// The vendor BLAS behind Backend::gemm: cuBLASLt for CUDA (blas_cublaslt.cu), rocBLAS loaded
// at run time for HIP (hip/blas_rocblas.cu). One object per opened Device, created on it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device/cuda/common.cuh"
#include "device/types.h"

namespace dcukit::device::gpu {

/// GEMM on one device, in the TN layout of GemmArgs, enqueued on a caller's stream.
class Blas {
public:
  virtual ~Blas() = default;
  /// Empty if `p` runs on this device, else why not ("fp8 needs compute capability 8.9+; ...").
  virtual std::string unsupported(Precision p) = 0;
  /// C = Aᵀ·B (alpha 1, beta 0). Enqueues on `stream`; the first call of a shape also plans it.
  virtual Status gemm(const GemmArgs& args, cudaStream_t stream) = 0;
};

/// The BLAS of `device`, which the caller has made current on this thread; its calls run with
/// that device current too (GpuDevice binds before each). Never null: a library that failed to
/// load or initialise yields an object whose unsupported() gives the reason for every precision.
std::unique_ptr<Blas> make_blas(int device);

/// ("cuBLASLt", "13.0.2") or ("rocBLAS", "..."), or the load error as the version.
std::vector<std::pair<std::string, std::string>> blas_versions();

/// A Blas that runs nothing and says why: the library is missing or failed to initialise.
class UnavailableBlas final : public Blas {
public:
  explicit UnavailableBlas(std::string reason) : m_reason(std::move(reason)) {}
  std::string unsupported(Precision) override { return m_reason; }
  Status gemm(const GemmArgs&, cudaStream_t) override { return Error{m_reason}; }

private:
  std::string m_reason;
};

/// Rejects empty or negative shapes and null pointers with a message naming them.
Status check_gemm_args(const GemmArgs& args);

}  // namespace dcukit::device::gpu
