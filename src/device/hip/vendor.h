#pragma once
// The one vendor header: maps the CUDA names used by src/device/cuda/ onto HIP, so that the
// same .cu sources build for both (ggml's vendors/hip.h). Included only by cuda/common.cuh,
// and only when DCUKIT_HIP is defined. Add a name here when the shared sources start using
// it; never declare a second mapping anywhere else.
#include <hip/hip_runtime.h>

// Types and constants.
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaErrorNotReady hipErrorNotReady
#define cudaErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define cudaStream_t hipStream_t
#define cudaEvent_t hipEvent_t
#define cudaDeviceProp hipDeviceProp_t
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaHostAllocDefault hipHostMallocDefault
#define cudaHostRegisterDefault hipHostRegisterDefault
#define cudaMemcpyDefault hipMemcpyDefault
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaDevAttrClockRate hipDeviceAttributeClockRate
#define cudaDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate

// Runtime calls.
#define cudaGetErrorString hipGetErrorString
#define cudaGetErrorName hipGetErrorName
#define cudaGetLastError hipGetLastError
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDeviceGetPCIBusId hipDeviceGetPCIBusId
#define cudaSetDevice hipSetDevice
#define cudaGetDevice hipGetDevice
#define cudaMemGetInfo hipMemGetInfo
#define cudaMalloc hipMalloc
#define cudaFree hipFree
#define cudaHostAlloc hipHostMalloc
#define cudaFreeHost hipHostFree
#define cudaHostRegister hipHostRegister
#define cudaHostUnregister hipHostUnregister
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemsetAsync hipMemsetAsync
#define cudaMemcpyPeerAsync hipMemcpyPeerAsync
#define cudaDeviceCanAccessPeer hipDeviceCanAccessPeer
#define cudaDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamQuery hipStreamQuery
#define cudaEventCreate hipEventCreate
#define cudaEventRecord hipEventRecord
#define cudaEventQuery hipEventQuery
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventDestroy hipEventDestroy
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaDriverGetVersion hipDriverGetVersion

// Device intrinsics. HIP before 6.2 has no *_sync shuffles; the mask is ignored because every
// kernel here calls them with all lanes of the wavefront active.
#define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta)

// The wavefront size of the device pass: 64 on every gfx9 target we build (gfx906, gfx90a, and
// DTK's gfx926/gfx928/gfx936); the host pass has no wavefront and takes the largest.
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define DCUKIT_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define DCUKIT_WARP_SIZE 64
#endif

// Streaming (non-temporal) loads and stores for the 16-byte vectors of the STREAM kernels,
// under CUDA's names. HIP's float4/double2 are structs, so go through clang's native vectors.
namespace dcukit_vendor {
typedef float native_float4 __attribute__((ext_vector_type(4)));
typedef double native_double2 __attribute__((ext_vector_type(2)));
}  // namespace dcukit_vendor

__device__ inline float4 __ldcs(const float4* p) {
  auto v = __builtin_nontemporal_load(reinterpret_cast<const dcukit_vendor::native_float4*>(p));
  return make_float4(v.x, v.y, v.z, v.w);
}
__device__ inline double2 __ldcs(const double2* p) {
  auto v = __builtin_nontemporal_load(reinterpret_cast<const dcukit_vendor::native_double2*>(p));
  return make_double2(v.x, v.y);
}
__device__ inline float __ldcs(const float* p) {
  return __builtin_nontemporal_load(p);
}
__device__ inline double __ldcs(const double* p) {
  return __builtin_nontemporal_load(p);
}
__device__ inline void __stcs(float4* p, float4 v) {
  dcukit_vendor::native_float4 n = {v.x, v.y, v.z, v.w};
  __builtin_nontemporal_store(n, reinterpret_cast<dcukit_vendor::native_float4*>(p));
}
__device__ inline void __stcs(double2* p, double2 v) {
  dcukit_vendor::native_double2 n = {v.x, v.y};
  __builtin_nontemporal_store(n, reinterpret_cast<dcukit_vendor::native_double2*>(p));
}
__device__ inline void __stcs(float* p, float v) {
  __builtin_nontemporal_store(v, p);
}
__device__ inline void __stcs(double* p, double v) {
  __builtin_nontemporal_store(v, p);
}

// CUDA's L2::256B prefetch-hinted load (cuda/common.cuh) has no AMD counterpart: non-temporal.
template <class V>
__device__ inline V load_l2_256(const V* p) {
  return __ldcs(p);
}
