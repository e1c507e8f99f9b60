// The forms the fifteenth CUDA corpus (calm, AMGX 2.5.0, cuda-kat 0.2; port-heldout14 and
// docs/port.md) showed the audit missing, each in a few lines.
#include <gtest/gtest.h>

#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout14Forms, ATestTrueOnHipThatPicksTheOldToolkitsBranchIsReported) {
  // cuda-kat's collaboration/warp.cuh: `__CUDACC_VER_MAJOR__ < 9` is true on HIP, which compiles
  // the legacy votes without a mask and drops the CUDA 9 branch every current toolkit compiles.
  // TransformerEngine's `!defined(__CUDACC_RTC__)` likewise picks a branch for HIP.
  const auto r = audit(R"(#if (__CUDACC_VER_MAJOR__ < 9)
__device__ bool all(int c) { return __all(c); }
#else
__device__ bool all(int c, unsigned m) { return __all_sync(m, c); }
#endif
#if !defined(__CUDACC_RTC__)
#include <cstdint>
#else
using uint32_t = unsigned int;
#endif
#if CUDART_VERSION < 2020
__device__ int old_helper();
#endif
)");
  const auto* version = at(r, RuleId::pp_cuda_only_macro, 1);
  ASSERT_TRUE(version) << hits(r).size();
  EXPECT_NE(version->why.find("HIP reads it as 0, the condition is true, so a HIP build compiles this branch "
                              "(line 2), written for CUDA toolkits older than the test, and drops the #else (line 4), "
                              "which newer toolkits compile."),
            std::string::npos)
      << version->why;
  const auto* rtc = at(r, RuleId::pp_cuda_only_macro, 6);
  ASSERT_TRUE(rtc);
  EXPECT_NE(rtc->why.find("HIP does not define it, the condition is true, so a HIP build compiles this branch "
                          "(line 7) and drops the #else (line 9), which CUDA compilations that define "
                          "__CUDACC_RTC__ compile."),
            std::string::npos)
      << rtc->why;
  // A branch without an #else that is true on HIP is HIP's as much as an old CUDA's (ggml's
  // polyfills): still not reported.
  EXPECT_FALSE(at(r, RuleId::pp_cuda_only_macro, 11));
}

TEST(PortHeldout14Forms, ATestTrueOnHipIsTheProjectsChoiceWhereItHasHipBranches) {
  const auto r = audit(R"(#if defined(__HIP_PLATFORM_AMD__)
#define WARP 64
#endif
#if (__CUDACC_VER_MAJOR__ < 9)
__device__ bool all(int c) { return __all(c); }
#else
__device__ bool all(int c, unsigned m) { return __all_sync(m, c); }
#endif
)");
  EXPECT_FALSE(at(r, RuleId::pp_cuda_only_macro, 4));
}

TEST(PortHeldout14Forms, PtxWhoseTypeAMacroPastesInAndPtxsExit) {
  // cuda-kat's ptx/miscellany.cuh: "bfe." PTX_STRINGIFY(ptx_type) " %0, %1, %2, %3;" and asm("exit;").
  const auto r = audit(R"(#define PTX_STRINGIFY(x) #x
__device__ unsigned bfe_u32(unsigned b, unsigned s, unsigned n) {
  unsigned r;
  asm("bfe." PTX_STRINGIFY(u32) " %0, %1, %2, %3;" : "=r"(r) : "r"(b), "r"(s), "r"(n));
  return r;
}
__device__ void stop() { asm("exit;"); }
__host__ void host_ret() { asm("ret"); }
)");
  EXPECT_EQ(hits(r), (Strings{"ptx.inline-asm:4", "ptx.inline-asm:7"}));
}

TEST(PortHeldout14Forms, CooperativeGroupsInternalsAreNotInHip) {
  // calm's infer.cu builds its grid barrier on CUDA's implementation namespace.
  const auto r = audit(R"(#include <cooperative_groups.h>
__device__ void syncgrid() {
  volatile unsigned int* barrier = &cooperative_groups::details::get_grid_workspace()->barrier;
  (void)barrier;
}
)");
  const auto* f = at(r, RuleId::api_cooperative_groups, 3);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_NE(f->why.find("cooperative_groups::details::get_grid_workspace, CUDA's own implementation"),
            std::string::npos)
      << f->why;
}

TEST(PortHeldout14Forms, CuptiAndNvmlAreLibrariesRocmHasNoDropInFor) {
  // calm's tools/cudaprof.cu injects a CUPTI tracer; a monitor reads NVML.
  const auto r = audit(R"(#include <cupti.h>
#include <nvml.h>
void trace() { cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL); }
unsigned long long total(nvmlDevice_t d) { nvmlMemory_t m; nvmlDeviceGetMemoryInfo(d, &m); return m.total; }
)");
  EXPECT_TRUE(at(r, RuleId::lib_cupti, 1)) << hits(r).size();
  EXPECT_TRUE(at(r, RuleId::lib_nvml, 2));
  // A project's own function that merely starts with the letters is not the library.
  EXPECT_EQ(count(audit("int nvmlike(int x) { return x; }\nint cuptify(int y) { return y; }\n"), RuleId::lib_nvml), 0);
}
