#pragma once
// Shared by every source of the CUDA and HIP backends: the runtime (CUDA's, or HIP's through
// the one vendor header), the one check macro, and waiting with a deadline.
#include <chrono>
#include <string>
#include <thread>

#include "util/result.h"

#if defined(DCUKIT_HIP)
#include "device/hip/vendor.h"
#else
#include <cuda_runtime.h>
#define DCUKIT_WARP_SIZE 32

/// A read-only load that bypasses L1 and asks L2 to fetch 256-byte sectors (PTX
/// ld.global.nc.L1::no_allocate.L2::256B, sm_80+). Only for data no thread writes during the
/// kernel. The HIP build gets a non-temporal load of the same name from the vendor header.
__device__ __forceinline__ float4 load_l2_256(const float4* p) {
  float4 v;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(p));
  return v;
}
__device__ __forceinline__ double2 load_l2_256(const double2* p) {
  double2 v;
  asm("ld.global.nc.L1::no_allocate.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.x), "=d"(v.y) : "l"(p));
  return v;
}
__device__ __forceinline__ float load_l2_256(const float* p) {
  return __ldcs(p);
}
__device__ __forceinline__ double load_l2_256(const double* p) {
  return __ldcs(p);
}
#endif

namespace dcukit::device::gpu {

/// "cuda" or "hip": the backend's name, and the prefix of its messages.
#if defined(DCUKIT_HIP)
inline constexpr const char* kBackendName = "hip";
#else
inline constexpr const char* kBackendName = "cuda";
#endif

/// Lanes of a warp (32) or wavefront (64) in device code; the upper bound in host code.
inline constexpr int kWarpSize = DCUKIT_WARP_SIZE;
/// Threads of every block we launch: a multiple of both warp sizes.
inline constexpr int kBlockSize = 256;

inline bool status_ok(cudaError_t e) {
  return e == cudaSuccess;
}
inline std::string status_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

/// "cudaMalloc(&p, bytes) failed at src/device/cuda/backend.cu:42: cudaErrorMemoryAllocation: out of memory".
inline Error call_failed(const char* call, const char* file, int line, const std::string& what) {
  return Error{std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + what};
}

}  // namespace dcukit::device::gpu

/// The one check macro (ggml's CUDA_CHECK_GEN): evaluates a runtime or BLAS call and, when it
/// fails, returns an Error from the enclosing function (which returns Status or Result<T>)
/// naming the call, file, line and the library's message. Overload status_ok/status_text in
/// namespace dcukit::device::gpu for each status type (cudaError_t here, BLAS in blas_*.cu).
#define DCUKIT_CHECK(call)                                                                           \
  do {                                                                                               \
    const auto dcukit_status_ = (call);                                                              \
    if (!::dcukit::device::gpu::status_ok(dcukit_status_))                                           \
      return ::dcukit::device::gpu::call_failed(#call, __FILE__, __LINE__,                           \
                                                ::dcukit::device::gpu::status_text(dcukit_status_)); \
  } while (0)

namespace dcukit::device::gpu {

/// Polls `query` (cudaEventQuery/cudaStreamQuery bound to one handle) until it stops answering
/// cudaErrorNotReady or `timeout` passes. Spins for the first 200 µs so that launch-plus-sync
/// latency is not inflated by sleeping, then sleeps 20 µs growing to 1 ms. Never blocks in the
/// runtime, so a hung device cannot hang the caller. Returns cudaErrorNotReady on timeout.
template <class Query>
cudaError_t poll_until(Query query, std::chrono::milliseconds timeout) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto deadline = start + timeout;
  auto nap = std::chrono::microseconds(20);
  for (;;) {
    cudaError_t e = query();
    if (e != cudaErrorNotReady) return e;
    const auto now = clock::now();
    if (now >= deadline) return cudaErrorNotReady;
    if (now - start > std::chrono::microseconds(200)) {
      std::this_thread::sleep_for(nap);
      if (nap < std::chrono::milliseconds(1)) nap *= 2;
    }
  }
}

}  // namespace dcukit::device::gpu
