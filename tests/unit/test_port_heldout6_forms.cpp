// The forms the seventh CUDA corpus (bitsandbytes 0.46.1, apex, punica; port-heldout6 and
// docs/port.md) showed the audit reporting in the wrong place or not at all, each in a few lines.
#include <gtest/gtest.h>

#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

namespace {

const dcukit::port::Finding* only(const dcukit::port::AuditReport& r, RuleId rule) {
  const dcukit::port::Finding* out = nullptr;
  for (const auto& f : r.findings)
    if (f.rule == rule) {
      if (out) return nullptr;
      out = &f;
    }
  return out;
}

}  // namespace

TEST(PortHeldout6Forms, AnArchTestThroughAMacroIsReportedWhereTheBranchIsChosen) {
  // bitsandbytes' common.cuh defines feature macros from __CUDA_ARCH__; kernels.cu tests them.
  const auto r = audit(
      Sources{{"common.cuh",
               "#pragma once\n#define BNB_CC_AMPERE 800\n#define BNB_BF16_AVAILABLE (__CUDA_ARCH__ >= BNB_CC_AMPERE)\n"
               "#define BNB_ANY_BF16 BNB_BF16_AVAILABLE\n"},
              {"kernels.cu",
               "#include <cuda_runtime.h>\n#include \"common.cuh\"\n__global__ void k(float* p) {\n"
               "#if BNB_BF16_AVAILABLE\n  p[0] = 1;\n#else\n  p[0] = 2;\n#endif\n"
               "#if BNB_ANY_BF16\n  p[1] = 1;\n#endif\n"
               "#ifdef BNB_BF16_AVAILABLE\n  p[2] = 1;\n#endif\n}\n"}});
  // Not at the definitions (a macro no code tests is no hazard); at both tests, the second one
  // through a macro defined from the first; not at #ifdef, which HIP answers as CUDA does.
  EXPECT_EQ(hits(r), (Strings{"arch.cuda-arch:4", "arch.cuda-arch:9"}));
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].file, "kernels.cu");
  EXPECT_NE(r.findings[0].why.find("through BNB_BF16_AVAILABLE (defined from it at common.cuh:3)"), std::string::npos)
      << r.findings[0].why;
  EXPECT_NE(r.findings[0].why.find("false on HIP"), std::string::npos) << r.findings[0].why;
  // Used as a value in code, the macro does not compile on HIP: reported at the use.
  const auto value = audit(Sources{{"t.cu",
                                    "#include <cuda_runtime.h>\n#define HAS_BF16 (__CUDA_ARCH__ >= 800)\n"
                                    "__global__ void k(int* p) { p[0] = HAS_BF16; }\n"}});
  EXPECT_EQ(hits(value), (Strings{"arch.cuda-arch:3"}));
  EXPECT_NE(value.findings[0].why.find("used as a value"), std::string::npos) << value.findings[0].why;
}

TEST(PortHeldout6Forms, CubAndThrustHeadersBringTheHipRuntimeAfterHipify) {
  // hipCUB's and rocThrust's headers include hip_runtime.h; cuda_runtime_api.h alone does not.
  const auto cub =
      audit(Sources{{"k.cu", "#include <cub/cub.cuh>\n__global__ void k(int* p) { p[threadIdx.x] = 0; }\n"}});
  EXPECT_FALSE(only(cub, RuleId::api_implicit_runtime));
  const auto thrust = audit(
      Sources{{"k.cu", "#include <thrust/device_vector.h>\n__global__ void k(int* p) { p[threadIdx.x] = 0; }\n"}});
  EXPECT_FALSE(only(thrust, RuleId::api_implicit_runtime));
  const auto api =
      audit(Sources{{"k.cu", "#include <cuda_runtime_api.h>\n__global__ void k(int* p) { p[threadIdx.x] = 0; }\n"}});
  EXPECT_TRUE(only(api, RuleId::api_implicit_runtime));
}

TEST(PortHeldout6Forms, LibcuxxIsOneFindingNamingTheFirstUseOfEachOfItsCalls) {
  // punica's bgmv_impl.cuh: <cuda/pipeline> and the calls that must be rewritten where they are.
  const auto r = audit(Sources{{"bgmv.cuh", R"(#include <cuda_runtime.h>
#include <cuda/pipeline>
__global__ void k(float* dst, const float* src) {
  auto pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(dst, src, 16, pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  cuda::memcpy_async(dst, src, 16, pipe);
  pipe.consumer_release();
  at::cuda::getCurrentCUDAStream();
}
)"}});
  const auto* f = only(r, RuleId::lib_libcudacxx);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_EQ(f->line, 2);
  EXPECT_EQ(f->also, (std::vector<int>{4, 5, 6, 7, 8, 10})) << "each name once, at its first use; at::cuda is ATen's";
  EXPECT_NE(f->why.find("cuda::memcpy_async"), std::string::npos) << f->why;
  // Without libcu++ among the includes, a member named consumer_wait is someone else's.
  const auto other = audit(Sources{{"q.cuh", "#include <cuda_runtime.h>\nvoid f(Queue& q) { q.consumer_wait(); }\n"}});
  EXPECT_FALSE(only(other, RuleId::lib_libcudacxx));
}

TEST(PortHeldout6Forms, LaunchBoundsAreOneDecisionAFile) {
  // bitsandbytes' kernels.cu gives ten kernels __launch_bounds__(N, M): one finding, the rest its lines.
  const auto r = audit(R"(__global__ void __launch_bounds__(1024, 2) a(int* p) { p[0] = 0; }
__global__ void __launch_bounds__(512, 4) b(int* p) { p[0] = 0; }
__global__ void __launch_bounds__(256) c(int* p) { p[0] = 0; }
__global__ void __launch_bounds__(256, 1) d(int* p) { p[0] = 0; }
)");
  EXPECT_EQ(hits(r), (Strings{"api.launch-bounds:1"}));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{2, 4}));
}

TEST(PortHeldout6Forms, LaunchBoundsNamesEachArgumentWhole) {
  // mamba's selective scan: __launch_bounds__(Ktraits::kNThreads, Ktraits::kMinBlocks) was told as
  // "(Ktraits, Ktraits)", the first token of each argument.
  const auto r = audit(R"(template <typename Ktraits>
__global__ __launch_bounds__(Ktraits::kNThreads, Ktraits::kMinBlocks) void k(int* p) { p[0] = 0; }
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].why.find("__launch_bounds__(Ktraits::kNThreads, Ktraits::kMinBlocks)"), std::string::npos)
      << r.findings[0].why;
}
