#pragma once
// Launchers of the memory kernels (fill, the STREAM kernels, dot) and the empty kernel.
// They enqueue on the given stream and return the launch error, if any.
#include <cstddef>
#include <string>

#include "device/cuda/common.cuh"
#include "device/types.h"

namespace dcukit::device::gpu {

/// How the streaming kernels walk their arrays; chosen at run time by DCUKIT_STREAM_VARIANT so
/// that one device run can compare them. All use 16-byte vectors (float4/double2) with a
/// scalar tail; a pointer that is not 16-byte aligned takes a scalar kernel whatever the variant.
/// dot follows the variant's load kind only (streaming for nt/unroll4, L2 256 B for l2pf) and keeps its fixed grid.
enum class StreamVariant {
  plain,          ///< grid-stride loop, grid = SMs × resident blocks per SM, ordinary loads/stores
  nt,             ///< as plain, with streaming (evict-first / non-temporal) loads and stores
  unroll4,        ///< as nt, with four independent vectors in flight per thread (the default)
  unroll4_plain,  ///< as unroll4, with ordinary loads/stores
  l2pf,           ///< as unroll4, loads bypass L1 and ask L2 for 256-byte fetches (NVIDIA sm_80+; nt on AMD)
  flat,           ///< one vector per thread, grid covering the whole array (BabelStream's shape)
};

inline constexpr StreamVariant kAllStreamVariants[] = {StreamVariant::plain,   StreamVariant::nt,
                                                       StreamVariant::unroll4, StreamVariant::unroll4_plain,
                                                       StreamVariant::l2pf,    StreamVariant::flat};

// Measured on an H200 (docs/results/h200.md, 4 GiB arrays): flat reached copy 4.27 and triad
// 4.37 TB/s, the other shapes 3.89-3.96 and 4.06-4.11 TB/s.
inline constexpr StreamVariant kDefaultStreamVariant = StreamVariant::flat;

/// "plain", "nt", "unroll4", "flat".
const char* to_string(StreamVariant v);

/// The variant named by $DCUKIT_STREAM_VARIANT (read on every call), the default when unset,
/// or an Error naming the bad value and the accepted ones.
Result<StreamVariant> stream_variant_from_env();

/// Device scratch of dot: one partial sum per block, a completion counter (zero between
/// launches) and the final sum. Allocated by the backend per device.
struct DotScratch {
  double* partials = nullptr;
  unsigned* counter = nullptr;
  double* result = nullptr;
  int capacity = 0;  ///< number of partials; the dot grid never exceeds it
};

/// Sets n fp32/fp64 elements of dst to value. `sms`: multiprocessors of the device.
Status launch_fill(Precision type, void* dst, double value, std::size_t n, int sms, cudaStream_t stream);

/// One STREAM op with BabelStream's definitions (copy c=a, scale b=s·c, add c=a+b,
/// triad a=b+s·c, dot Σa·b into scratch.result).
Status launch_stream(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n,
                     StreamVariant variant, int sms, const DotScratch& scratch, cudaStream_t stream);

/// A kernel that does nothing, for launch latency.
Status launch_empty(cudaStream_t stream);

/// One thread following i = chain[i] `steps` times from 0; the last i to *out.
Status launch_chase(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out, cudaStream_t stream);

}  // namespace dcukit::device::gpu
