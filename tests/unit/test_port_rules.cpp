// ptx.inline-asm, arch.cuda-arch, api.*, lib.* and dcu.fp8: each hazard and its correct form.
#include <gtest/gtest.h>

#include "port/render.h"
#include "test_port_helpers.h"

using dcukit::port::RuleId;
using dcukit::port::Severity;
using porttest::audit;
using porttest::count;
using porttest::hits;
using Strings = std::vector<std::string>;

TEST(PortPtx, InlinePtxIsReportedAmdAsmAndBarriersAreNot) {
  const auto r = audit(R"(__device__ int f(const float4* p) {
  int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm volatile("ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p));
  __asm__ __volatile__("" ::: "memory");
  asm volatile("v_mov_b32 %0, 0" : "=v"(lane));
#ifdef __HIP_PLATFORM_AMD__
  asm volatile("s_nop 0");
#endif
  return lane;
})");
  EXPECT_EQ(hits(r, true), (Strings{"ptx.inline-asm:3:3", "ptx.inline-asm:4:3"}));
  EXPECT_NE(r.findings[1].why.find("ld.global.nc.v4.f32"), std::string::npos);
}

TEST(PortPtx, TensorCorePtxIsAlsoAWarpMatrixFinding) {
  const auto r = audit(R"(__device__ void m(int* d, int a, int b) {
  asm("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+r"(d[0]), "+r"(d[1]) : "r"(a), "r"(b));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.b16 {%0, %1}, [%2];" : "=r"(d[0]), "=r"(d[1]) : "l"(d));
  __hmma_m16n16k16_mma_f32f32(nullptr, nullptr, nullptr, nullptr, 0, 0);
})");
  EXPECT_EQ(hits(r), (Strings{"ptx.inline-asm:2", "api.warp-matrix:2", "ptx.inline-asm:3", "api.warp-matrix:3",
                              "api.warp-matrix:4"}));
}

TEST(PortCudaArch, TestsWhoseOutcomeOnHipDependsOnCudaArch) {
  const auto r = audit(R"(#ifdef __CUDA_ARCH__
int device_pass;
#endif
#if __CUDA_ARCH__ >= 800
int ampere;
#endif
#if !(defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)) && __CUDA_ARCH__ >= 800
int excluded_explicitly;
#endif
#if defined(__HIP_PLATFORM_AMD__) || __CUDA_ARCH__ >= 600
int decided_by_hip;
#endif
__device__ int g() { return __CUDA_ARCH__; }
#ifndef __HIP_PLATFORM_AMD__
__device__ int h() { return __CUDA_ARCH__; }
#endif
)");
  // Lines 1 and 4 depend on __CUDA_ARCH__ (false on HIP); 7 and 10 are decided by the HIP test; line
  // 13 uses the value (no HIP compile); line 15 is CUDA-only.
  EXPECT_EQ(hits(r), (Strings{"arch.cuda-arch:1", "arch.cuda-arch:4", "arch.cuda-arch:13"}));
  EXPECT_NE(r.findings[0].why.find("false on HIP"), std::string::npos) << r.findings[0].why;
  EXPECT_EQ(r.findings[0].severity, Severity::warning);
}

TEST(PortCudaArch, ADefinitionForHipIsReportedOnceInsteadOfEachTest) {
  const auto r = audit({{"vendor.h", "#pragma once\n#define __CUDA_ARCH__ 1300\n"},
                        {"k.cu", "#include \"vendor.h\"\n#if __CUDA_ARCH__ >= 800\nint x;\n#endif\n"}});
  EXPECT_EQ(hits(r), (Strings{"arch.cuda-arch:2"}));
  EXPECT_EQ(r.findings[0].file, "vendor.h");
  EXPECT_NE(r.findings[0].why.find("1 test in"), std::string::npos) << r.findings[0].why;
}

TEST(PortApi, OneFindingAFileAtTheFirstUseWithTheCount) {
  const auto r = audit(R"(#include <cooperative_groups/reduce.h>
#include <mma.h>
namespace cg = cooperative_groups;
texture<float, 1> tex;
__global__ void k(float* o) {
  cg::thread_block b = cg::this_thread_block();
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> acc;
  o[0] = tex1Dfetch(tex, 0);
}
void host(cudaStream_t s) {
  cudaGraph_t g;
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  cudaStreamEndCapture(s, &g);
})");
  EXPECT_EQ(hits(r), (Strings{"api.cooperative-groups:1", "api.wmma:2", "api.texture:4", "api.graph:11"}));
  EXPECT_NE(r.findings[3].why.find("4 uses"), std::string::npos) << r.findings[3].why;
  EXPECT_EQ(r.findings[1].severity, Severity::error);
}

TEST(PortApi, CorrectFormsAreLeftAlone) {
  const auto r = audit(R"(#include <rocwmma/rocwmma.hpp>
__global__ void k(const float* __restrict__ p, float* o, floatx4 d, halfx4 a, halfx4 b) {
  float texture = __ldg(p);                                        // a plain load, a variable named texture
  rocwmma::fragment<rocwmma::accumulator, 16, 16, 16, float> acc;  // rocWMMA, not nvcuda::wmma
  d = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, d, 0, 0, 0);     // MFMA, not mma.sync
  int wmma = 0;
  o[0] = texture + wmma;
})");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortApi, OnlyTheCooperativeGroupsHipLacksAreReportedWithTheirLines) {
  // As the CUDA samples write them (reduction, warpAggregatedAtomicsCG): HIP has groups, tiles of
  // up to 64 lanes and grid sync, but not these.
  const auto r = audit(R"(#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  cg::thread_block cta = cg::this_thread_block();
  auto tile32 = cg::tiled_partition<32>(cta);
  cg::grid_group grid = cg::this_grid();
  cg::coalesced_group active = cg::coalesced_threads();
  auto labeled = cg::labeled_partition(active, out[0]);
  out[1] = cg::reduce(labeled, out[2], cg::greater<int>());
  __shared__ cg::block_tile_memory<256> scratch;
  auto big = cg::this_thread_block(scratch);
  auto wide = cg::tiled_partition<128>(big);
  grid.sync();
})");
  ASSERT_EQ(count(r, RuleId::api_cooperative_groups), 1);
  const auto& f = r.findings[0];
  EXPECT_EQ(f.line, 2);
  EXPECT_EQ(f.also, (std::vector<int>{9, 10, 11, 12, 13}));
  EXPECT_EQ(f.severity, Severity::error);
  const auto plain = audit("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                           "__global__ void k() { auto t = cg::tiled_partition<32>(cg::this_thread_block()); }\n");
  EXPECT_EQ(count(plain, RuleId::api_cooperative_groups), 0) << "HIP has these";
}

TEST(PortApi, LaunchBoundsWithASecondArgument) {
  const auto r =
      audit("__global__ void __launch_bounds__(256, 2) a() {}\n__global__ void __launch_bounds__(256) b() {}\n");
  EXPECT_EQ(hits(r), (Strings{"api.launch-bounds:1"}));
}

TEST(PortApi, HipOnlyCodeIsNotReportedForCudaApis) {
  const auto r = audit(R"(#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_cooperative_groups.h>
void f(hipStream_t s) { hipGraph_t g; hipStreamBeginCapture(s, hipStreamCaptureModeGlobal); (void)g; }
#define cublasCreate hipblasCreate
#endif
)");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortLibs, EachLibraryOnceAFileWithWhatItMapsTo) {
  const auto r = audit(R"(#include <cublas_v2.h>
#include <cublasLt.h>
#include <cudnn.h>
#include <cufft.h>
#include <curand_kernel.h>
#include <cusparse.h>
#include <nccl.h>
#include <cub/cub.cuh>
#include <thrust/system/cuda/error.h>
#include <cutlass/gemm/device/gemm.h>
#include "flash_attn/flash_api.h"
void f() {
  cublasHandle_t h; cublasCreate(&h);
  thrust::device_vector<float> v(4);  // rocThrust has it: not a reference
  thrust::copy(thrust::cuda::par, v.begin(), v.end(), v.begin());
  cute::Layout<int> l;
}
#define CUBLAS_CHECK(x) x
struct Ctx { int cublas_handles[4]; };
)");
  EXPECT_EQ(hits(r),
            (Strings{"lib.cublas:1", "lib.cublasLt:2", "lib.cudnn:3", "lib.cufft:4", "lib.curand:5", "lib.cusparse:6",
                     "lib.nccl:7", "lib.cub:8", "lib.thrust:9", "lib.cutlass:10", "lib.flash-attn:11"}));
  // cublas: the header and two names; CUBLAS_CHECK and cublas_handles are the project's own.
  EXPECT_NE(r.findings[0].why.find("3 references"), std::string::npos) << r.findings[0].why;
  EXPECT_NE(r.findings[0].why.find("hipBLAS"), std::string::npos);
  EXPECT_EQ(r.findings[0].severity, Severity::note);
  EXPECT_EQ(r.findings[9].severity, Severity::error);  // cutlass: no equivalent
}

TEST(PortLibs, ALibraryOnlyInACudaBranchIsNotReported) {
  // ggml's sum.cu: CUB only where GGML_USE_HIP is undefined.
  const auto r = audit(R"(#if !defined(GGML_USE_HIP) && CUDART_VERSION >= 11070
#define USE_CUB
#endif
#ifdef USE_CUB
#include <cub/cub.cuh>
using namespace cub;
#endif
)");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].library_refs.at(RuleId::lib_cub), 2);  // the statistics still count it
}

TEST(PortFp8, NvidiaFp8TypesAndConversions) {
  const auto r = audit(R"(#include <cuda_fp8.h>
__device__ float f(__nv_fp8_e4m3 x, __nv_fp8_storage_t s) {
  __half_raw h = __nv_cvt_fp8_to_halfraw(s, __NV_E5M2);
  return float(x);
}
__device__ float g(__half x) { return __half2float(x); }
)");
  // One finding for the file, with the other lines that name FP8.
  EXPECT_EQ(hits(r), (Strings{"dcu.fp8:1"}));
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{2, 3}));
  EXPECT_EQ(r.findings[0].severity, Severity::error);
  EXPECT_NE(dcukit::port::render_text(r).find("The same at lines 2, 3 (3 places in this file)."),
            std::string::npos);
}

TEST(PortPtx, HostAssemblyIsNotPtx) {
  // x86, PowerPC and Arm host assembly in CUDA sources (timers, CPU ids, fences): not PTX.
  const auto r = audit(R"(static inline unsigned long long ticks() {
  unsigned lo, hi;
  __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
  asm volatile("cpuid" : "=a"(lo) : "a"(0) : "ebx", "ecx", "edx");
  asm volatile("movl %1, %%eax" : "=r"(lo) : "r"(hi));
  asm volatile("mftb %0" : "=r"(lo));
  __asm__ __volatile__("lwsync" ::: "memory");
  asm volatile("mrs %0, cntvct_el0" : "=r"(hi));
  return ((unsigned long long)hi << 32) | lo;
}
__device__ void stop() { asm("trap;"); }
)");
  EXPECT_EQ(hits(r), (Strings{"ptx.inline-asm:11"}));
}

TEST(PortApi, GraphicsInteropAndAProjectsOwnNamesAreNotGraphs) {
  const auto r = audit(R"(void draw(cudaGraphicsResource* res, cudaStream_t s) {
  cudaGraphicsMapResources(1, &res, s);
  int cudaGraphLaunches = 0;
  cudaGraphicsUnmapResources(1, &res, s);
}
void replay(cudaGraph_t g, cudaStream_t s) {
  cudaGraphExec_t e;
  cudaGraphInstantiate(&e, g, nullptr, nullptr, 0);
  cudaGraphLaunch(e, s);
})");
  // Interop is its own rule: each name once, at its first use (simpleGL's repeats are not new places).
  EXPECT_EQ(hits(r), (Strings{"api.graphics-interop:1", "api.graphics-interop:2", "api.graphics-interop:4",
                              "api.graph:6"}));
  EXPECT_NE(r.findings[3].why.find("4 uses"), std::string::npos) << r.findings[3].why;
  const auto gl = audit("#include <cuda_gl_interop.h>\nvoid f(GLuint vbo, cudaGraphicsResource** r) {\n"
                        "  cudaGraphicsGLRegisterBuffer(r, vbo, 0);\n  cudaGraphicsGLRegisterBuffer(r, vbo, 0);\n}\n");
  EXPECT_EQ(hits(gl), (Strings{"api.graphics-interop:1", "api.graphics-interop:2", "api.graphics-interop:3"}));
}

TEST(PortLibs, ALibrarysOwnTreeIsNotReportedToItself) {
  // flash-attention's ROCm backend opens namespace flash and lives under csrc/flash_attn_ck.
  const auto own = porttest::audit(porttest::Sources{
      {"csrc/flash_attn_ck/mha_fwd.cu", "#include \"flash_fwd_launch_template.h\"\nvoid run_mha_fwd_ck(int);\n"},
      {"src/fmha.cu", "namespace flash { struct Params {}; void fwd(Params&); }\nvoid g() { flash::Params p; flash::fwd(p); }\n"}});
  EXPECT_TRUE(own.findings.empty()) << own.findings[0].file << ": " << own.findings[0].why;
  // A project that uses it still hears of it.
  const auto user = audit("#include \"flash_attn/flash_api.h\"\nvoid h() { flash::mha_fwd(); }\n");
  EXPECT_EQ(hits(user), (Strings{"lib.flash-attn:1"}));
}

TEST(PortMacros, ACudaOnlyConditionWithoutElseIsReportedWithWhatItDrops) {
  // cuda-samples' helper_cuda.h guards checkCudaErrors with __DRIVER_TYPES_H__; graph capture
  // behind CUDART_VERSION. An #else, or a HIP alternative in the condition, is a decision made.
  const auto r = audit(R"(#ifdef __DRIVER_TYPES_H__
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)
#endif
void f(cudaStream_t s) {
#if CUDART_VERSION >= 10000
  cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
#endif
  checkCudaErrors(cudaDeviceSynchronize());
}
#if CUDART_VERSION >= 11000
int a = 1;
#else
int a = 2;
#endif
#if CUDART_VERSION >= 12000 || defined(__HIP_PLATFORM_AMD__)
int b;
#endif
)");
  // The condition at line 15 tests HIP's platform: the code has been written for HIP, so the
  // #else at line 10 is its authors' choice (test_port_heldout_forms.cpp has the other case).
  EXPECT_EQ(hits(r), (Strings{"pp.cuda-only-macro:1", "pp.cuda-only-macro:5"}));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].severity, Severity::error);  // line 8 uses what it drops
  EXPECT_NE(r.findings[0].why.find("defining checkCudaErrors"), std::string::npos) << r.findings[0].why;
  EXPECT_NE(r.findings[0].why.find("uses checkCudaErrors (line 8)"), std::string::npos) << r.findings[0].why;
  EXPECT_EQ(r.findings[1].severity, Severity::warning);
  EXPECT_NE(r.findings[1].why.find("calling cudaStreamBeginCapture"), std::string::npos) << r.findings[1].why;
}

TEST(PortMacros, ABranchOfDirectivesOnlySaysWhatItIncludesAndDefinesNotZeroLines) {
  // tiny-cuda-nn's common.h: the branch HIP drops holds an #include and #defines, no line of code.
  const auto r = audit(R"(#if defined(__CUDACC__)
#  include <cuda_fp16.h>
#endif
#if defined(__CUDACC__)
#define HD __host__ __device__
#else
#define HD
#endif
#ifdef __CUDACC__
int a;

int b;
#endif
)");
  ASSERT_EQ(hits(r), (Strings{"pp.cuda-only-macro:1", "pp.cuda-only-macro:4", "pp.cuda-only-macro:9"}));
  EXPECT_NE(r.findings[0].why.find("silently drops line 2, including <cuda_fp16.h>."), std::string::npos)
      << r.findings[0].why;
  EXPECT_NE(r.findings[1].why.find("and drops line 5, defining HD."), std::string::npos) << r.findings[1].why;
  EXPECT_NE(r.findings[2].why.find("drops 2 lines of code (lines 10-12)."), std::string::npos) << r.findings[2].why;
  for (const auto& f : r.findings) EXPECT_EQ(f.why.find("0 lines"), std::string::npos) << f.why;
}

TEST(PortScale, AHundredThousandEntryInitializerOnOneLineIsAuditedLikeAnyOther) {
  // Once 52.7 s (superlinear in the line's length); ctest's timeout stands guard, and the
  // finding after it must still be there, on its line.
  std::string table = "__constant__ int table[] = {";
  for (int i = 0; i < 100000; ++i) table += std::to_string(i) + ",";
  table += "0};\n";
  const auto r = audit(table + "__global__ void k(int* p) { p[threadIdx.x % 32] = __shfl_down(table[0], 1); }\n");
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:2"}));
}
