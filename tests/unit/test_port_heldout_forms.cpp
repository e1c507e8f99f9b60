// The forms the third CUDA corpus (llm.c, SGEMM_CUDA, faiss v1.8.0; docs/port.md) showed the
// audit missing or miscounting, each in a few lines of the same shape.
#include <gtest/gtest.h>

#include "port/render.h"
#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using dcukit::port::Severity;
using Strings = std::vector<std::string>;

namespace {

const dcukit::port::Finding* first(const dcukit::port::AuditReport& r, RuleId rule, const std::string& file) {
  for (const auto& f : r.findings)
    if (f.rule == rule && f.file == file) return &f;
  return nullptr;
}

}  // namespace

TEST(PortHeldoutForms, ALibraryIsOneFindingWhereItIsIncludedNotInEveryFileThatUsesIt) {
  // llm.c: cublas_common.h includes <cublas_v2.h> and <cublasLt.h>; matmul.cuh includes the
  // project's header and calls cuBLASLt. Only the include is the port's work.
  const auto r = audit(Sources{{"cublas_common.h", "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#include <cublasLt.h>\n"
                                                   "cublasHandle_t handle;\n"},
                               {"matmul.cuh", "#include \"cublas_common.h\"\nvoid mm() { cublasLtMatmulDesc_t d; }\n"}});
  EXPECT_TRUE(first(r, RuleId::lib_cublas, "cublas_common.h"));
  EXPECT_TRUE(first(r, RuleId::lib_cublaslt, "cublas_common.h"));
  EXPECT_FALSE(first(r, RuleId::lib_cublas, "matmul.cuh")) << "a project header named after cuBLAS is not cuBLAS";
  EXPECT_FALSE(first(r, RuleId::lib_cublaslt, "matmul.cuh")) << "its uses are the include's finding";
  // Used with no include among the files audited (it comes from elsewhere): at the first use.
  const auto alone = audit(Sources{{"train.cu", "#include <cuda_runtime.h>\n#include \"zero.cuh\"\n"
                                                "void f() { ncclAllReduce(0, 0, 0, 0, 0, 0, 0); }\n"}});
  EXPECT_EQ(hits(alone), (Strings{"lib.nccl:3"}));
}

TEST(PortHeldoutForms, NvtxAndLibcuxxHeadersAreLibrariesAndRepeatedIncludesAreOneFinding) {
  const auto r = audit(Sources{{"common.h", "#include <cuda_runtime.h>\n#include <nvtx3/nvToolsExt.h>\n"
                                            "#include <nvtx3/nvToolsExtCudaRt.h>\n#include <cuda/barrier>\n"}});
  EXPECT_EQ(hits(r), (Strings{"lib.nvtx:2", "lib.libcudacxx:4"}));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].also, std::vector<int>{3}) << "the second NVTX header is the same library";
  EXPECT_EQ(r.findings[1].severity, Severity::warning);
}

TEST(PortHeldoutForms, AnElseHipTakesInAProjectNeverBuiltForHipIsSaid) {
  // faiss v1.8.0: CUDA >= 9 shuffles with masks, the pre-9 ones in the #else, which HIP compiles.
  const std::string src = R"(#include <cuda_runtime.h>
__device__ int shfl(int v, int lane) {
#if CUDA_VERSION >= 9000
  return __shfl_sync(0xffffffff, v, lane);
#else
  return __shfl(v, lane);
#endif
}
)";
  const auto r = audit(Sources{{"WarpShuffles.cuh", src}});
  const auto* f = first(r, RuleId::pp_cuda_only_macro, "WarpShuffles.cuh");
  ASSERT_TRUE(f) << "the #else HIP compiles is reported";
  EXPECT_EQ(f->line, 3);
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_NE(f->why.find("compiles the #else (lines 6-6)"), std::string::npos) << f->why;
  // The same file in a project with a HIP branch: the #else is its authors' choice for HIP.
  const auto hip = audit(Sources{{"WarpShuffles.cuh", "#ifdef __HIP_PLATFORM_AMD__\n#include <hip/hip_runtime.h>\n#endif\n" + src}});
  EXPECT_FALSE(first(hip, RuleId::pp_cuda_only_macro, "WarpShuffles.cuh"));
}

TEST(PortHeldoutForms, ATrueOnHipBranchThatStopsTheBuildIsAnError) {
  // faiss DeviceDefs.cuh: HIP reads CUDA_VERSION as 0, so the check for CUDA 8 fails the build.
  const auto r = audit("#if CUDA_VERSION < 8000\n#error \"CUDA >= 8.0 is required\"\n#endif\n"
                       "#if CUDART_VERSION < 2020\nint old_runtime_shim;\n#endif\n");
  EXPECT_EQ(hits(r), (Strings{"pp.cuda-only-macro:1"})) << "a true branch with code stays unreported (ggml)";
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, Severity::error);
  EXPECT_NE(r.findings[0].why.find("stops at the #error on line 2"), std::string::npos) << r.findings[0].why;
}

TEST(PortHeldoutForms, LibraryVersionMacrosAreCudaOnlyEvenWithoutTheirHeader) {
  // llm.c's cudnn_att.cpp: cudnn_frontend.h is not among the files audited.
  const auto r = audit("void f(Options o) {\n  o.set_name(1)\n#if CUDNN_FRONTEND_MAJOR_VERSION > 1 || "
                       "CUDNN_FRONTEND_MINOR_VERSION >= 5\n    .set_deterministic_algorithm(true)\n#endif\n    ;\n}\n");
  EXPECT_EQ(hits(r), (Strings{"pp.cuda-only-macro:3"}));
}

TEST(PortHeldoutForms, AWarpConstantIsOneFindingAtItsDefinitionNamingItsUsesInEveryFile) {
  // llm.c: WARP_SIZE is defined in cuda_common.h and used by layernorm.cuh and attention.cuh.
  const auto r = audit(Sources{
      {"cuda_common.h", "#include <cuda_runtime.h>\n#define WARP_SIZE 32U\n"},
      {"layernorm.cuh", "#include \"cuda_common.h\"\n__global__ void k(float* x) {\n"
                        "  int lane = threadIdx.x % WARP_SIZE;\n  float v = x[lane];\n"
                        "  for (int o = 1; o < WARP_SIZE; o *= 2) v += __shfl_xor_sync(0xffffffffu, v, o);\n"
                        "  x[lane] = __shfl_sync(0xffffffffu, v, 0);\n}\n"}});
  int constant = 0;
  for (const auto& f : r.findings)
    if (f.rule == RuleId::wave64_warp_size_literal) {
      ++constant;
      EXPECT_EQ(f.file, "cuda_common.h") << "not one more finding in the file that uses it";
      EXPECT_NE(f.why.find("layernorm.cuh lines 3, 5"), std::string::npos) << f.why;
    }
  EXPECT_EQ(constant, 1);
}

TEST(PortHeldoutForms, TheLegacyDriverLaunchIsOneErrorAFile) {
  // gpu-burn's compare kernel: cuParamSetSize/cuParamSetv/cuFuncSetBlockShape, then cuLaunchGridAsync.
  const auto r = audit("void launch(CUfunction f, void* p) {\n  cuParamSetSize(f, 8);\n  cuParamSetv(f, 0, &p, 8);\n"
                       "  cuFuncSetBlockShape(f, 16, 16, 1);\n  cuLaunchGridAsync(f, 64, 64, 0);\n}\n");
  EXPECT_EQ(hits(r), (Strings{"api.legacy-launch:2"}));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(r.findings[0].severity, Severity::error);
}

TEST(PortHeldoutForms, AFullMaskMacroIsReportedWhereItIsDefinedNamingItsUses) {
  // FasterTransformer: `#define FINAL_MASK 0xffffffff` in reduce_kernel_utils.cuh, used by every
  // reduction there and in normalize_kernels.cu.
  const auto r = audit(Sources{{"reduce.cuh", "#include <cuda_runtime.h>\n#define FINAL_MASK 0xffffffff\n"
                                              "__device__ float sum(float v) { return v + __shfl_xor_sync(FINAL_MASK, v, 1, 32); }\n"},
                               {"norm.cu", "#include \"reduce.cuh\"\n__global__ void k(float* p) {\n"
                                           "  p[0] = __shfl_xor_sync(FINAL_MASK, p[0], 2, 32);\n}\n"}});
  const auto* f = first(r, RuleId::wave64_full_mask, "reduce.cuh");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->line, 2);
  EXPECT_NE(f->why.find("reduce.cuh line 3; norm.cu line 3"), std::string::npos) << f->why;
  EXPECT_FALSE(first(r, RuleId::wave64_full_mask, "norm.cu")) << "the use is the definition's finding";
}

TEST(PortHeldoutForms, AFilesOwn32IsNotHiddenByAnotherFilesHardwareWidth) {
  // exllamav2: layer_norm.cu defines WARP_SIZE from warpSize under USE_ROCM; head_norm.cu's own
  // unconditional 32 beside a butterfly from warpSize / 2 is still a 32 in its translation unit.
  const auto r = audit(Sources{
      {"layer_norm.cu", "#if defined(USE_ROCM)\n#define WARP_SIZE (warpSize)\n#else\n#define WARP_SIZE 32\n#endif\n"
                        "__global__ void a(float* x) {\n  float v = x[threadIdx.x];\n"
                        "  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
                        "  x[threadIdx.x % WARP_SIZE] = v;\n}\n"},
      {"head_norm.cu", "#define WARP_SIZE 32\n__global__ void b(float* s, float* x) {\n"
                       "  int warp_id = threadIdx.x / WARP_SIZE, lane_id = threadIdx.x % WARP_SIZE;\n"
                       "  float v = x[threadIdx.x];\n"
                       "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"
                       "  if (lane_id == 0) s[warp_id] = v;\n}\n"}});
  std::vector<std::string> constant;
  for (const auto& f : r.findings)
    if (f.rule == RuleId::wave64_warp_size_literal) constant.push_back(f.file + ":" + std::to_string(f.line));
  EXPECT_EQ(constant, (std::vector<std::string>{"head_norm.cu:1"}));
}

TEST(PortHeldoutForms, LibrariesATorchExtensionReachesThroughATenAreNotItsToPort) {
  // exllamav2's h_gemm.cuh calls cublasHgemm with no cuBLAS include: ATen's CUDA context brings
  // it, and torch's ROCm build hipifies the extension. Without ATen it is reported at its use.
  const std::string use = "void g(cublasHandle_t h) { cublasHgemm(h); }\n";
  const auto torch = audit(Sources{{"h_gemm.cuh", "#include <ATen/cuda/CUDAContext.h>\n" + use}});
  EXPECT_EQ(hits(torch), (Strings{}));
  const auto bare = audit(Sources{{"h_gemm.cuh", "#include <cuda_runtime.h>\n" + use}});
  EXPECT_EQ(hits(bare), (Strings{"lib.cublas:2"}));
}

TEST(PortHeldoutForms, AHelperMacroNothingExpandsBringsNoLibrary) {
  // FasterTransformer's cuda_utils.h: checkCUDNN names cuDNN's types, no file uses it or includes cuDNN.
  const std::string helper =
      "#define checkCUDNN(e) { cudnnStatus_t s = (e); if (s != CUDNN_STATUS_SUCCESS) throw 1; }\n";
  EXPECT_EQ(hits(audit(Sources{{"cuda_utils.h", helper}})), (Strings{}));
  const auto used = audit(Sources{{"cuda_utils.h", helper}, {"conv.cu", "#include \"cuda_utils.h\"\nvoid f() { checkCUDNN(0); }\n"}});
  EXPECT_EQ(hits(used), (Strings{"lib.cudnn:1"}));
}

TEST(PortHeldoutForms, FP8IsNvidiasHeaderNotAProjectHeaderNamedAfterIt) {
  // FasterTransformer's cuda_fp8_utils.h is its own header; LeetCUDA includes cuda_fp8.h and never
  // names an FP8 type. Where the types are used, the include is one of the finding's lines.
  const std::string use = "__device__ float f(__nv_fp8_e4m3 x) { return float(x); }\n";
  EXPECT_EQ(hits(audit("#include \"src/utils/cuda_fp8_utils.h\"\n" + use)), (Strings{"dcu.fp8:2"}));
  EXPECT_EQ(hits(audit("#include <cuda_fp8.h>\n")), (Strings{}));
  const auto both = audit("#include <cuda_fp8.h>\n" + use);
  ASSERT_EQ(hits(both), (Strings{"dcu.fp8:1"}));
  EXPECT_EQ(both.findings[0].also, (std::vector<int>{2}));
}

TEST(PortHeldoutForms, ACudaArchBranchHipDropsNamesItsPtx) {
  // AutoAWQ's gemm_cuda_gen.cu: the pre-sm80 mma PTX sits in a branch HIP never compiles.
  const auto r = audit("__device__ void f(float* c) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n"
                       "  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};\" "
                       ": \"=f\"(c[0]) : \"r\"(1), \"r\"(2), \"f\"(c[1]));\n#else\n  c[0] = 0;\n#endif\n}\n");
  ASSERT_EQ(hits(r), (Strings{"arch.cuda-arch:2"}));
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{3}));
  EXPECT_NE(r.findings[0].why.find("inline PTX (line 3)"), std::string::npos) << r.findings[0].why;
}

TEST(PortHeldoutForms, GraphsAProjectMapsForHipAreItsChoice) {
  const std::string use = "void f(cudaStream_t s, cudaGraph_t* g) { cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); "
                          "cudaStreamEndCapture(s, g); }\n";
  EXPECT_EQ(hits(audit(use)), (Strings{"api.graph:1"}));
  const auto mapped = audit("#if defined(USE_ROCM)\n#define cudaStreamBeginCapture hipStreamBeginCapture\n#endif\n" + use);
  EXPECT_EQ(hits(mapped), (Strings{}));
}

TEST(PortHeldoutForms, APartialMaskWrittenIn32BitsIsReported) {
  // GPUSorting's DeviceRadixSort: every lane but 0, as a 32-bit literal.
  const auto r = audit("__global__ void k(unsigned* h) {\n  unsigned x = h[threadIdx.x];\n"
                       "  h[0] = __shfl_sync(0xfffffffe, x, 1);\n  h[1] = __shfl_sync(0xfffffffffffffffeull, x, 1);\n}\n");
  EXPECT_EQ(hits(r), (Strings{"wave64.full-mask:3"}));
}
