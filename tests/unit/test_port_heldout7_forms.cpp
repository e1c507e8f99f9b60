// The forms the eighth CUDA corpus (moderngpu, tiny-cuda-nn, mamba before its ROCm port;
// port-heldout7 and docs/port.md) showed the audit missing, each in a few lines.
#include <gtest/gtest.h>

#include <filesystem>

#include "port/audit.h"
#include "tempdir.h"
#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using dcukit::port::Severity;
using Strings = std::vector<std::string>;

TEST(PortHeldout7Forms, CudaccIsNvccsNotHipClangs) {
  // moderngpu's intrinsics.hxx stops any other compiler; its meta.hxx hides the device layer.
  const auto r = audit(Sources{{"intrinsics.hxx", R"(#pragma once
#ifndef __CUDACC__
#error "You must compile this file with nvcc. You must."
#endif
#ifdef __CUDACC__
#define MGPU_HOST_DEVICE __forceinline__ __device__ __host__
#endif
)"}});
  const auto* stop = at(r, RuleId::pp_cuda_only_macro, 2);
  ASSERT_TRUE(stop) << hits(r).size();
  EXPECT_EQ(stop->severity, Severity::error);
  EXPECT_NE(stop->why.find("stops at the #error on line 3"), std::string::npos) << stop->why;
  EXPECT_NE(stop->why.find("hipify renames it __HIPCC__"), std::string::npos) << stop->why;
  const auto* drop = at(r, RuleId::pp_cuda_only_macro, 5);
  ASSERT_TRUE(drop);
  EXPECT_NE(drop->why.find("defining MGPU_HOST_DEVICE"), std::string::npos) << drop->why;
  // clang's CUDA mode defines __CUDA__, its HIP mode does not.
  const auto clang = audit(
      Sources{{"common.h",
               "#if defined(__clang__) && defined(__CUDA__)\n#define TCNN_HOST_DEVICE __host__ __device__\n#endif\n"}});
  EXPECT_TRUE(at(clang, RuleId::pp_cuda_only_macro, 1));
}

TEST(PortHeldout7Forms, ATestOfTwoCudaMacrosWhereNeitherAloneDecidesIsReported) {
  // moderngpu: false on HIP because both are, so tracing either alone saw no dependence.
  const auto r = audit(R"(#if (__CUDACC_VER_MAJOR__ >= 9 && defined(__CUDA_ARCH__) && \
     __CUDA_ARCH__ >= 300) && !defined(USE_SHFL_SYNC)
  #define USE_SHFL_SYNC
#endif
)");
  EXPECT_FALSE(r.findings.empty());
  EXPECT_TRUE(at(r, RuleId::arch_cuda_arch, 1) || at(r, RuleId::pp_cuda_only_macro, 1)) << hits(r).size();
}

TEST(PortHeldout7Forms, ABranchHipDropsListsItsNestedArchTestsAndTheMacrosPtx) {
  // moderngpu's launch_params.hxx: an SM-tag chain inside `#ifdef __CUDA_ARCH__`; its
  // intrinsics.hxx: a macro whose body is PTX, defined in a branch HIP drops.
  const auto r = audit(R"(#ifdef __CUDA_ARCH__
#if __CUDA_ARCH__ == 860
  #define TAG sm_86
#elif __CUDA_ARCH__ >= 700
  #define TAG sm_70
#endif
#define SHFL_OP(x) \
  asm("shfl.sync.down.b32 %0, %1, 1, 31, -1;" : "=r"(x) : "r"(x));
#else
  #define TAG sm_00
#endif
)");
  const auto* f = at(r, RuleId::arch_cuda_arch, 1);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_EQ(f->also, (std::vector<int>{2, 4, 8}));
  EXPECT_NE(f->why.find("holds inline PTX (line 8)"), std::string::npos) << f->why;
  EXPECT_NE(f->why.find("(lines 2, 4)"), std::string::npos) << f->why;
}

TEST(PortHeldout7Forms, AVoteKeptIn32BitsInABranchHipDropsIsWhatTheArchTestTakesWithIt) {
  // moderngpu's legacy ballot(): the branch a port reaches by fixing the arch test keeps the
  // 64-bit vote in 32 bits; nvdiffrast's __match_any_sync fast path likewise. A vote kept whole is
  // not listed.
  const auto r = audit(R"(__device__ unsigned ballot(int predicate) {
  unsigned y = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 300
  y = __ballot(predicate);
#endif
  return y;
}
__device__ unsigned long long whole(int p) {
  unsigned long long y = 0;
#if __CUDA_ARCH__ >= 700
  y = __ballot_sync(__activemask(), p);
#endif
  return y;
}
)");
  const auto* f = at(r, RuleId::arch_cuda_arch, 3);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_EQ(f->also, (std::vector<int>{4}));
  EXPECT_NE(f->why.find("Its votes kept in 32 bits lose lanes 32-63 of HIP's 64-bit masks once a port lets HIP "
                        "compile the branch (line 4)."),
            std::string::npos)
      << f->why;
  const auto* kept = at(r, RuleId::arch_cuda_arch, 10);
  ASSERT_TRUE(kept);
  EXPECT_TRUE(kept->also.empty());
  EXPECT_EQ(count(r, RuleId::wave64_ballot_width), 0);  // HIP does not compile either branch as it stands
}

TEST(PortHeldout7Forms, WmmaIsPtxAndGlobalCudaStdIsLibcuxx) {
  // tiny-cuda-nn's mma.h falls back to wmma.mma.sync before sm_80; mamba's uninitialized_copy.cuh
  // names ::cuda::std.
  const auto ptx = audit(R"(__device__ void f(unsigned* d) {
  asm("wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 {%0}, {%1}, {%2}, {%3};" : "=r"(d[0]) : "r"(d[1]), "r"(d[2]), "r"(d[3]));
}
)");
  EXPECT_EQ(hits(ptx), (Strings{"ptx.inline-asm:2"}));
  const auto lib = audit(Sources{{"copy.cuh", R"(#include <cuda/std/type_traits>
template <typename T, typename U> __device__ void copy(T* p, U&& v) {
  new (p) T(::cuda::std::forward<U>(v));
}
template <typename T, typename ::cuda::std::enable_if<::cuda::std::is_trivially_copyable<T>::value, int>::type = 0>
__device__ void copy2(T* p) {}
)"}});
  const auto* f = at(lib, RuleId::lib_libcudacxx, 1);
  ASSERT_TRUE(f) << hits(lib).size();
  EXPECT_EQ(f->also, (std::vector<int>{3, 5}));
  EXPECT_NE(f->why.find("cuda::std::enable_if"), std::string::npos) << f->why;
}

TEST(PortHeldout7Forms, APerWarpArrayReadUnderAWavefrontCountHoldsEveryWavefront) {
  // tiny-cuda-nn's reduce_sum: sdata[32] indexed by lane = tid % warpSize, but only under
  // threadIdx.x < blockDim.x / warpSize (at most 16 wavefronts of 64).
  const auto r = audit(R"(__global__ void k(float* out, float v) {
  static __shared__ float sdata[32];
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;
  if (lane == 0) sdata[wid] = v;
  __syncthreads();
  if (wid == 0) v = (threadIdx.x < blockDim.x / warpSize) ? sdata[lane] : 0;
  out[0] = v;
}
)");
  EXPECT_FALSE(at(r, RuleId::wave64_per_warp_shared, 2)) << hits(r).size();
}

TEST(PortHeldout7Forms, AFolderOfHxxHeadersIsAudited) {
  // moderngpu's library is .hxx headers only; a folder of them was refused as holding no source.
  testutil::TempDir dir("port_hxx");
  dir.write("mgpu/src/intrinsics.hxx", "__device__ int f(int v) { return __shfl_xor_sync(0xffffffff, v, 1); }\n");
  dcukit::port::AuditRequest o;
  o.paths = {dir.file("mgpu")};
  auto r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->findings.size(), 1u);
}

TEST(PortHeldout7Forms, AWarpTransposeLoadInstantiatedWith32ThreadsIsReportedWhereTheSizeIsGiven) {
  // mamba's selective scan: the traits' cub::BlockLoad takes kNThreads_ through kNThreads, the
  // launcher passes its own kNThreads on, and the dispatch instantiates it with 32.
  const auto r = audit(R"(#include <cub/block/block_load.cuh>
template <int kNThreads_, typename T> struct Traits {
  static constexpr int kNThreads = kNThreads_;
  using BlockLoadT = cub::BlockLoad<T, kNThreads, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
};
template <int kNThreads, typename T> void launch(T* p) {
  using K = Traits<kNThreads, T>;
  (void)p;
}
template <int THREADS, typename T> void other(T* p) { (void)p; }
void dispatch(float* p, int n) {
  if (n < 128) launch<32, float>(p);
  else launch<128, float>(p);
  other<32, float>(p);
  using Direct = cub::BlockLoad<float, 96, 2, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
}
)");
  const auto* f = at(r, RuleId::wave64_warp_size_literal, 12);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_NE(f->why.find("launch<...> sets kNThreads to 32"), std::string::npos) << f->why;
  EXPECT_TRUE(at(r, RuleId::wave64_warp_size_literal, 15));  // a literal 96
  EXPECT_EQ(count(r, RuleId::wave64_warp_size_literal), 2);  // not 128, not other<32>
}
