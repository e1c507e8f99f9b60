// The memory kernels, one source for CUDA and HIP (see common.cuh).
// Assumptions, checked where they are used:
// - blocks of kBlockSize (256) threads: a multiple of the warp (32) and of the wavefront (64);
// - 16-byte vectors (float4/double2) need 16-byte aligned pointers; cudaMalloc/hipMalloc give
//   256, and any other pointer falls back to the scalar kernel;
// - sizes are size_t throughout: arrays past 2^31 elements are fine;
// - reductions use kWarpSize (32 on NVIDIA, 64 on gfx9) and never assume 32.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "device/cuda/kernels.cuh"

namespace dcukit::device::gpu {
namespace {

// ---- 16-byte vectors and element-wise application --------------------------------------------

template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
};
template <>
struct Vec16<double> {
  using type = double2;
};

template <class F>
__device__ __forceinline__ float4 zip(F f, float4 a, float4 b) {
  return make_float4(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z), f(a.w, b.w));
}
template <class F>
__device__ __forceinline__ double2 zip(F f, double2 a, double2 b) {
  return make_double2(f(a.x, b.x), f(a.y, b.y));
}
template <class F>
__device__ __forceinline__ float zip(F f, float a, float b) {
  return f(a, b);
}
template <class F>
__device__ __forceinline__ double zip(F f, double a, double b) {
  return f(a, b);
}

__device__ __forceinline__ double dot_lanes(float4 a, float4 b) {
  return double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z + double(a.w) * b.w;
}
__device__ __forceinline__ double dot_lanes(double2 a, double2 b) {
  return a.x * b.x + a.y * b.y;
}
__device__ __forceinline__ double dot_lanes(float a, float b) {
  return double(a) * b;
}
__device__ __forceinline__ double dot_lanes(double a, double b) {
  return a * b;
}

__device__ __forceinline__ void splat(float4& out, float v) {
  out = make_float4(v, v, v, v);
}
__device__ __forceinline__ void splat(double2& out, double v) {
  out = make_double2(v, v);
}
__device__ __forceinline__ void splat(float& out, float v) {
  out = v;
}
__device__ __forceinline__ void splat(double& out, double v) {
  out = v;
}

/// How a kernel loads and stores: ordinary (cached), streaming (__ldcs/__stcs: evict-first on
/// NVIDIA, non-temporal on AMD, defined for HIP in the vendor header), or streaming stores with
/// read-only loads that ask L2 for 256-byte fetches (load_l2_256, common.cuh / vendor.h).
enum class Access { cached, streaming, l2_256 };

template <Access kA, class V>
__device__ __forceinline__ V load(const V* p) {
  if constexpr (kA == Access::streaming)
    return __ldcs(p);
  else if constexpr (kA == Access::l2_256)
    return load_l2_256(p);
  else
    return *p;
}
template <Access kA, class V>
__device__ __forceinline__ void store(V* p, V v) {
  if constexpr (kA == Access::cached)
    *p = v;
  else
    __stcs(p, v);
}

// ---- The STREAM operations as f(x, y) -> out -------------------------------------------------

struct CopyOp {
  template <class T>
  __device__ T operator()(T a, T) const {
    return a;
  }
};
template <class S>
struct ScaleOp {
  S s;
  template <class T>
  __device__ T operator()(T c, T) const {
    return s * c;
  }
};
struct AddOp {
  template <class T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};
template <class S>
struct TriadOp {
  S s;
  template <class T>
  __device__ T operator()(T b, T c) const {
    return b + s * c;
  }
};

/// out[i] = f(x[i], y[i]) (y unused when kInputs is 1) over n elements of T, accessed as V
/// (a 16-byte vector, or T itself for unaligned pointers). Vectors are walked grid-stride,
/// kUnroll at a time (loads of all kUnroll issued before any store); the last n % width
/// elements are done by the first threads of the grid.
template <int kInputs, Access kA, int kUnroll, class T, class V, class F>
__global__ void __launch_bounds__(kBlockSize)
    stream_kernel(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out, std::size_t n, F f) {
  constexpr std::size_t kWidth = sizeof(V) / sizeof(T);
  const std::size_t nv = n / kWidth;
  const V* xv = reinterpret_cast<const V*>(x);
  const V* yv = reinterpret_cast<const V*>(y);
  V* ov = reinterpret_cast<V*>(out);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t first = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t i = first;
  if constexpr (kUnroll > 1) {
    for (; i + (kUnroll - 1) * stride < nv; i += kUnroll * stride) {
      V a[kUnroll], b[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        a[u] = load<kA>(xv + i + u * stride);
        if constexpr (kInputs == 2)
          b[u] = load<kA>(yv + i + u * stride);
        else
          b[u] = a[u];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) store<kA>(ov + i + u * stride, zip(f, a[u], b[u]));
    }
  }
  for (; i < nv; i += stride) {
    const V a = load<kA>(xv + i);
    const V b = kInputs == 2 ? load<kA>(yv + i) : a;
    store<kA>(ov + i, zip(f, a, b));
  }
  const std::size_t t = nv * kWidth + first;
  if (t < n) out[t] = f(x[t], kInputs == 2 ? y[t] : x[t]);
}

/// dst[i] = value over n elements, vectors as in stream_kernel.
template <class T, class V>
__global__ void __launch_bounds__(kBlockSize) fill_kernel(T* __restrict__ dst, std::size_t n, T value) {
  constexpr std::size_t kWidth = sizeof(V) / sizeof(T);
  const std::size_t nv = n / kWidth;
  V v;
  splat(v, value);
  V* dv = reinterpret_cast<V*>(dst);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t first = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < nv; i += stride) dv[i] = v;
  const std::size_t t = nv * kWidth + first;
  if (t < n) dst[t] = value;
}

/// Sum of v over the block, valid in thread 0. Warp/wavefront shuffles of kWarpSize lanes, then
/// one partial per warp through shared memory. Every thread of the block must call it.
__device__ double block_sum(double v) {
  __shared__ double warp_sums[kBlockSize / 32];  // enough for 32- and 64-lane warps
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  double s = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < int(blockDim.x) / kWarpSize; ++w) s += warp_sums[w];
  __syncthreads();  // warp_sums may be reused by a second call
  return s;
}

/// BabelStream's dot with a fixed grid: each thread accumulates a·b (in double) grid-stride,
/// each block writes its partial sum, and the last block to finish adds the partials in block
/// order (deterministic) into *result and re-arms the counter: one launch, no host reduction.
template <Access kA, class T, class V>
__global__ void __launch_bounds__(kBlockSize)
    dot_kernel(const T* __restrict__ x, const T* __restrict__ y, std::size_t n, double* partials, unsigned* counter,
               double* result) {
  constexpr std::size_t kWidth = sizeof(V) / sizeof(T);
  const std::size_t nv = n / kWidth;
  const V* xv = reinterpret_cast<const V*>(x);
  const V* yv = reinterpret_cast<const V*>(y);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t first = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  double sum = 0;
  std::size_t i = first;
  for (; i + stride < nv; i += 2 * stride)  // two loads of each array in flight
    sum +=
        dot_lanes(load<kA>(xv + i), load<kA>(yv + i)) + dot_lanes(load<kA>(xv + i + stride), load<kA>(yv + i + stride));
  for (; i < nv; i += stride) sum += dot_lanes(load<kA>(xv + i), load<kA>(yv + i));
  const std::size_t t = nv * kWidth + first;
  if (t < n) sum += double(x[t]) * y[t];

  __shared__ bool is_last;
  sum = block_sum(sum);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
    __threadfence();
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  const volatile double* vp = partials;
  double total = 0;
  // Each thread adds a fixed subset of partials; block_sum adds them in a fixed order.
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += vp[b];
  total = block_sum(total);
  if (threadIdx.x == 0) {
    *result = total;
    *counter = 0;
  }
}

__global__ void empty_kernel() {}

// Each load's address is the value of the load before it: nothing overlaps, so the time a step
// is the latency of one load from wherever `chain` lives (this device's HBM, or a peer's).
__global__ void chase_kernel(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out) {
  const volatile std::uint32_t* c = chain;  // volatile: ld.volatile on NVIDIA, glc on AMD, past L1
  std::uint32_t i = 0;
  for (std::uint64_t s = 0; s < steps; ++s) i = c[i];
  *out = i;
}

// ---- Launch shapes ---------------------------------------------------------------------------

/// Resident blocks per SM of `kernel` of kBlockSize threads, from the occupancy API (1 if it
/// fails). Callers cache it per kernel in a function-local static: this assumes that all
/// devices of one process share an architecture (a mix only costs occupancy, not correctness).
template <class Kernel>
int blocks_per_sm(Kernel kernel) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kBlockSize, 0) != cudaSuccess || blocks < 1)
    blocks = 1;
  return blocks;
}

std::size_t ceil_div(std::size_t a, std::size_t b) {
  return (a + b - 1) / b;
}

/// Grid of a grid-stride kernel: `resident` blocks per SM on every SM, but no more blocks than
/// there is work for (at least one, for the tail); `flat`: one work item per thread.
unsigned grid_for(int resident, int sms, std::size_t work_items, bool flat) {
  const std::size_t needed = std::max<std::size_t>(1, ceil_div(work_items, kBlockSize));
  if (flat) return unsigned(std::min<std::size_t>(needed, 0x7fffffffu));
  const std::size_t full = std::size_t(std::max(sms, 1)) * std::size_t(resident);
  return unsigned(std::min(needed, full));
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <int kInputs, Access kA, int kUnroll, class T, class V, class F>
Status launch_op_shape(const T* x, const T* y, T* out, std::size_t n, F f, int sms, bool flat, cudaStream_t stream) {
  constexpr std::size_t kWidth = sizeof(V) / sizeof(T);
  auto kernel = stream_kernel<kInputs, kA, kUnroll, T, V, F>;
  static const int resident = blocks_per_sm(kernel);
  const std::size_t items = std::max(ceil_div(n / kWidth, kUnroll), n % kWidth);
  kernel<<<grid_for(resident, sms, items, flat), kBlockSize, 0, stream>>>(x, y, out, n, f);
  DCUKIT_CHECK(cudaGetLastError());
  return {};
}

template <int kInputs, class T, class F>
Status launch_op(const void* x, const void* y, void* out, std::size_t n, F f, StreamVariant variant, int sms,
                 cudaStream_t stream) {
  using V = typename Vec16<T>::type;
  auto* xt = static_cast<const T*>(x);
  auto* yt = static_cast<const T*>(y);
  auto* ot = static_cast<T*>(out);
  // Unaligned pointers (never from allocate()) take one scalar shape whatever the variant.
  if (!(aligned16(x) && aligned16(y) && aligned16(out)))
    return launch_op_shape<kInputs, Access::cached, 1, T, T>(xt, yt, ot, n, f, sms, false, stream);
  constexpr Access kC = Access::cached, kS = Access::streaming, kL2 = Access::l2_256;
  switch (variant) {
    case StreamVariant::plain:
      return launch_op_shape<kInputs, kC, 1, T, V>(xt, yt, ot, n, f, sms, false, stream);
    case StreamVariant::nt:
      return launch_op_shape<kInputs, kS, 1, T, V>(xt, yt, ot, n, f, sms, false, stream);
    case StreamVariant::unroll4:
      return launch_op_shape<kInputs, kS, 4, T, V>(xt, yt, ot, n, f, sms, false, stream);
    case StreamVariant::unroll4_plain:
      return launch_op_shape<kInputs, kC, 4, T, V>(xt, yt, ot, n, f, sms, false, stream);
    case StreamVariant::l2pf:
      return launch_op_shape<kInputs, kL2, 4, T, V>(xt, yt, ot, n, f, sms, false, stream);
    case StreamVariant::flat:
      return launch_op_shape<kInputs, kC, 1, T, V>(xt, yt, ot, n, f, sms, true, stream);
  }
  return Error{"unknown stream variant"};
}

template <Access kA, class T, class V>
Status launch_dot_shape(const T* x, const T* y, std::size_t n, int sms, const DotScratch& s, cudaStream_t stream) {
  auto kernel = dot_kernel<kA, T, V>;
  static const int resident = blocks_per_sm(kernel);
  // A fixed grid (BabelStream's dot): the device filled once, capped by the scratch size.
  const std::size_t full = std::size_t(std::max(sms, 1)) * std::size_t(resident);
  const unsigned grid = unsigned(std::min<std::size_t>(full, std::size_t(s.capacity)));
  kernel<<<grid, kBlockSize, 0, stream>>>(x, y, n, s.partials, s.counter, s.result);
  DCUKIT_CHECK(cudaGetLastError());
  return {};
}

template <class T>
Status launch_dot(const void* a, const void* b, std::size_t n, StreamVariant variant, int sms, const DotScratch& s,
                  cudaStream_t stream) {
  if (s.capacity < 1) return Error{std::string(kBackendName) + ": dot scratch is not allocated"};
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  if (!(aligned16(a) && aligned16(b))) return launch_dot_shape<Access::cached, T, T>(x, y, n, sms, s, stream);
  using V = typename Vec16<T>::type;
  switch (variant) {
    case StreamVariant::nt:
    case StreamVariant::unroll4:
      return launch_dot_shape<Access::streaming, T, V>(x, y, n, sms, s, stream);
    case StreamVariant::l2pf:
      return launch_dot_shape<Access::l2_256, T, V>(x, y, n, sms, s, stream);
    default:
      return launch_dot_shape<Access::cached, T, V>(x, y, n, sms, s, stream);
  }
}

template <class T>
Status launch_stream_typed(StreamOp op, void* a, void* b, void* c, double scalar, std::size_t n, StreamVariant variant,
                           int sms, const DotScratch& scratch, cudaStream_t stream) {
  const T s = T(scalar);
  switch (op) {
    case StreamOp::copy:
      return launch_op<1, T>(a, a, c, n, CopyOp{}, variant, sms, stream);  // c = a
    case StreamOp::scale:
      return launch_op<1, T>(c, c, b, n, ScaleOp<T>{s}, variant, sms, stream);  // b = s·c
    case StreamOp::add:
      return launch_op<2, T>(a, b, c, n, AddOp{}, variant, sms, stream);  // c = a + b
    case StreamOp::triad:
      return launch_op<2, T>(b, c, a, n, TriadOp<T>{s}, variant, sms, stream);  // a = b + s·c
    case StreamOp::dot:
      return launch_dot<T>(a, b, n, variant, sms, scratch, stream);  // Σ a·b
  }
  return Error{"unknown stream op"};
}

Status require_fp32_or_fp64(Precision type, const char* what) {
  if (type == Precision::fp32 || type == Precision::fp64) return {};
  return Error{std::string(kBackendName) + ": " + what + " supports fp32 and fp64, not " +
               std::string(to_string(type))};
}

}  // namespace

const char* to_string(StreamVariant v) {
  switch (v) {
    case StreamVariant::plain:
      return "plain";
    case StreamVariant::nt:
      return "nt";
    case StreamVariant::unroll4:
      return "unroll4";
    case StreamVariant::unroll4_plain:
      return "unroll4_plain";
    case StreamVariant::l2pf:
      return "l2pf";
    case StreamVariant::flat:
      return "flat";
  }
  return "?";
}

Result<StreamVariant> stream_variant_from_env() {
  const char* env = std::getenv("DCUKIT_STREAM_VARIANT");
  if (env == nullptr || *env == '\0') return kDefaultStreamVariant;
  for (auto v : kAllStreamVariants)
    if (std::strcmp(env, to_string(v)) == 0) return v;
  return Error{std::string("DCUKIT_STREAM_VARIANT=") + env +
               " is not a stream variant; use plain, nt, unroll4, unroll4_plain, l2pf or flat"};
}

Status launch_fill(Precision type, void* dst, double value, std::size_t n, int sms, cudaStream_t stream) {
  if (auto st = require_fp32_or_fp64(type, "fill"); !st) return st;
  if (n == 0) return {};
  auto go = [&](auto tag) -> Status {
    using T = decltype(tag);
    using V = typename Vec16<T>::type;
    constexpr std::size_t kWidth = sizeof(V) / sizeof(T);
    T* d = static_cast<T*>(dst);
    if (aligned16(dst)) {
      static const int resident = blocks_per_sm(fill_kernel<T, V>);
      const std::size_t items = std::max(n / kWidth, n % kWidth);
      fill_kernel<T, V><<<grid_for(resident, sms, items, false), kBlockSize, 0, stream>>>(d, n, T(value));
    } else {
      static const int resident = blocks_per_sm(fill_kernel<T, T>);
      fill_kernel<T, T><<<grid_for(resident, sms, n, false), kBlockSize, 0, stream>>>(d, n, T(value));
    }
    DCUKIT_CHECK(cudaGetLastError());
    return {};
  };
  return type == Precision::fp32 ? go(float{}) : go(double{});
}

Status launch_stream(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n,
                     StreamVariant variant, int sms, const DotScratch& scratch, cudaStream_t stream) {
  if (auto st = require_fp32_or_fp64(type, "the STREAM kernels"); !st) return st;
  if (n == 0) return op == StreamOp::dot ? launch_dot<float>(a, b, 0, variant, sms, scratch, stream) : Status{};
  return type == Precision::fp32 ? launch_stream_typed<float>(op, a, b, c, scalar, n, variant, sms, scratch, stream)
                                 : launch_stream_typed<double>(op, a, b, c, scalar, n, variant, sms, scratch, stream);
}

Status launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  DCUKIT_CHECK(cudaGetLastError());
  return {};
}

Status launch_chase(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out, cudaStream_t stream) {
  chase_kernel<<<1, 1, 0, stream>>>(chain, steps, out);
  DCUKIT_CHECK(cudaGetLastError());
  return {};
}

}  // namespace dcukit::device::gpu
