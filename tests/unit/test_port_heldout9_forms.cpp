// The forms the tenth CUDA corpus (gsplat, lmdeploy's TurboMind kernels before its ROCm port,
// cuDF's compression kernels; port-heldout9 and docs/port.md) showed the audit missing.
#include <gtest/gtest.h>

#include "port/audit.h"
#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout9Forms, ABallotReturnedIn32BitsIsReportedAtTheWrapperAndWhereItIsCalled) {
  // cuDF's block_utils.cuh and unsnap.cu: every caller of ballot() gets lanes 0-31 only.
  const auto r = audit(Sources{{"block_utils.cuh", R"(#include <cuda_runtime.h>
inline __device__ uint32_t ballot(int pred) { return __ballot_sync(~0ull, pred); }
)"},
                               {"unsnap.cu", R"(#include "block_utils.cuh"
__global__ void k(const int* in, unsigned* out) {
  uint32_t v0 = ballot(in[threadIdx.x] == 4);
  uint32_t v1;
  v1 = ballot(in[threadIdx.x + 32] == 4);
  out[0] = v0 | v1;
}
)"}});
  EXPECT_EQ(hits(r), (Strings{"wave64.ballot-width:2", "wave64.ballot-width:3"}));
  const auto* call = at(r, RuleId::wave64_ballot_width, 3);
  ASSERT_TRUE(call);
  EXPECT_EQ(call->also, (std::vector<int>{5}));
  EXPECT_NE(call->why.find("ballot() (block_utils.cuh:2) returns the ballot in 32 bits"), std::string::npos)
      << call->why;
  // moderngpu: an attribute macro before the type, the ballot kept in a variable it returns.
  const auto mgpu = audit(R"(#define MGPU_HOST_DEVICE __host__ __device__
MGPU_HOST_DEVICE unsigned ballot(int predicate, unsigned long long mask = ~0ull) {
  unsigned long long y = 0;
  y = __ballot_sync(mask, predicate);
  return y;
}
__device__ int count(bool x) { int bits = ballot(x); return bits; }
)");
  EXPECT_TRUE(at(mgpu, RuleId::wave64_ballot_width, 7)) << hits(mgpu).size();
  // A function that returns a count of the ballot is no wrapper.
  const auto count = audit(R"(__device__ int votes(bool p) { return __popcll(__ballot_sync(~0ull, p)); }
__device__ int twice(bool p) { int n = votes(p); return 2 * n; }
)");
  EXPECT_TRUE(hits(count).empty()) << hits(count).front();
}

TEST(PortHeldout9Forms, AFlagAnArchTestSetsCarriesTheTestWhereItDropsPtx) {
  // lmdeploy's common.h sets TURBOMIND_ARCH_SM80 to 1 or 0; mma.h's PTX sits under `#if` of it.
  const auto r = audit(R"(#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800)
#define TURBOMIND_ARCH_SM80 1
#else
#define TURBOMIND_ARCH_SM80 0
#endif
__device__ void mma(unsigned* d, unsigned a) {
#if TURBOMIND_ARCH_SM80
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1};" : "=r"(d[0]) : "r"(a));
#else
  d[0] = a;
#endif
#if TURBOMIND_ARCH_SM80
  d[1] = a;
#endif
  if (TURBOMIND_ARCH_SM80) d[2] = a;
}
)");
  EXPECT_EQ(hits(r), (Strings{"arch.cuda-arch:1", "arch.cuda-arch:7"}));
  const auto* f = at(r, RuleId::arch_cuda_arch, 7);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->also, (std::vector<int>{8}));
  EXPECT_NE(f->why.find("through TURBOMIND_ARCH_SM80 (set by a __CUDA_ARCH__ test at"), std::string::npos) << f->why;
  // CTranslate2's CUDA_CAN_USE_HALF is 1 on HIP as on any recent card; moderngpu's `#ifndef`
  // around its own default is no test of the card.
  const auto half = audit(R"(#if !defined(__CUDACC__) || !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 530
#define CUDA_CAN_USE_HALF 1
#else
#define CUDA_CAN_USE_HALF 0
#endif
#if CUDA_CAN_USE_HALF
__device__ float h(float x) { return x; }
#endif
#ifndef UNROLL
#ifdef __CUDA_ARCH__
#define UNROLL 4
#endif
#endif
)");
  EXPECT_EQ(hits(half), (Strings{"arch.cuda-arch:1", "arch.cuda-arch:10"}));
}

TEST(PortHeldout9Forms, AnArchBranchHipDropsListsTheCudaMacroTestsInside) {
  // lmdeploy's common.h: `#if defined(__CUDACC_RTC__) || ...` nested in `#if defined(__CUDA_ARCH__)`.
  const auto r = audit(R"(#if defined(__CUDA_ARCH__)
#if defined(__CUDACC_RTC__)
#define PRAGMA_UNROLL _Pragma("unroll")
#else
#define PRAGMA_UNROLL #pragma unroll
#endif
#else
#define PRAGMA_UNROLL
#endif
)");
  const auto* f = at(r, RuleId::arch_cuda_arch, 1);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_EQ(f->also, (std::vector<int>{2}));
}

TEST(PortHeldout9Forms, PipelinePrimitivesAreOneFindingAtTheIncludeWithEachNamesFirstUse) {
  // lmdeploy's mainloop_sm80.h.
  const auto r = audit(R"(#include <cuda_runtime.h>
#include <cuda_pipeline_primitives.h>
__global__ void k(float* dst, const float* src) {
  __pipeline_memcpy_async(dst, src, 16);
  __pipeline_commit();
  __pipeline_commit();
  __pipeline_wait_prior(0);
}
)");
  EXPECT_EQ(hits(r), (Strings{"api.async-copy:2"}));
  const auto* f = at(r, RuleId::api_async_copy, 2);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->also, (std::vector<int>{4, 5, 7}));
}
