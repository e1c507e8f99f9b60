// `dcukit port translate`: names from the one table in code only, headers, mask-free *_sync
// calls, the audit's rules as comments, what is left untranslated, and where outputs go.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "port/translate.h"
#include "tempdir.h"
#include "test_port_helpers.h"

using dcukit::port::TranslatedFile;

namespace {

struct Translated {
  std::string text;
  TranslatedFile stats;
};

Translated translate(const std::string& source, bool annotate = true) {
  const auto p = porttest::project({{"t.cu", source}});
  const auto audit = dcukit::port::audit_project(p, {});
  Translated out;
  out.text = dcukit::port::translate_source(p, 0, dcukit::port::hip_map(), audit.findings, annotate, out.stats);
  return out;
}

int converted(const TranslatedFile& f, const std::string& cuda) {
  for (const auto& c : f.converted)
    if (c.cuda == cuda) return c.count;
  return 0;
}

const dcukit::port::Untranslated* left(const TranslatedFile& f, const std::string& name) {
  for (const auto& u : f.untranslated)
    if (u.name == name) return &u;
  return nullptr;
}

}  // namespace

TEST(PortTranslate, CodeNamesAndHeadersOnly) {
  const auto t = translate(R"(#include <cuda_runtime.h>
#include "cuda_fp16.h"
// cudaMalloc in a comment stays, and so does "cudaFree" in a string.
void f(float** p, cudaStream_t s) {
  cudaMalloc(p, 64);  /* cudaMalloc */
  const char* msg = "cudaFree failed";
  kernel<<<1, 64, 0, s>>>(*p);
  cudaStreamSynchronize(s);
}
)",
                           false);
  EXPECT_EQ(t.text, R"(#include <hip/hip_runtime.h>
#include "hip/hip_fp16.h"
// cudaMalloc in a comment stays, and so does "cudaFree" in a string.
void f(float** p, hipStream_t s) {
  hipMalloc(p, 64);  /* cudaMalloc */
  const char* msg = "cudaFree failed";
  kernel<<<1, 64, 0, s>>>(*p);
  hipStreamSynchronize(s);
}
)");
  EXPECT_EQ(converted(t.stats, "cudaMalloc"), 1);
  EXPECT_EQ(converted(t.stats, "cuda_runtime.h"), 1);
  EXPECT_EQ(t.stats.converted_refs(), 5);
  EXPECT_TRUE(t.stats.untranslated.empty());
}

TEST(PortTranslate, ConditionsButNotMacroNames) {
  const auto t = translate("#ifdef __CUDACC__\n#define cudaMalloc my_malloc\n#define ALLOC cudaMalloc\n#endif\n", false);
  EXPECT_EQ(t.text, "#ifdef __HIPCC__\n#define cudaMalloc my_malloc\n#define ALLOC hipMalloc\n#endif\n");
}

TEST(PortTranslate, LibrariesAndNamespaces) {
  const auto t = translate(R"(#include <cublas_v2.h>
#include <cub/cub.cuh>
#include <nccl.h>
using namespace cub;
void f(cublasHandle_t h, ncclComm_t c) {
  cublasCreate(&h);
  cub::DeviceReduce::Sum(nullptr, n, x, y, 0);
  int cub = 0;
  curandState st;
}
)",
                           false);
  EXPECT_NE(t.text.find("#include <hipblas/hipblas.h>"), std::string::npos);
  EXPECT_NE(t.text.find("#include <hipcub/hipcub.hpp>"), std::string::npos);
  EXPECT_NE(t.text.find("#include <rccl/rccl.h>"), std::string::npos);
  EXPECT_NE(t.text.find("using namespace hipcub;"), std::string::npos);
  EXPECT_NE(t.text.find("hipcub::DeviceReduce::Sum"), std::string::npos);
  EXPECT_NE(t.text.find("int cub = 0;"), std::string::npos);                             // not the namespace
  EXPECT_NE(t.text.find("void f(hipblasHandle_t h, ncclComm_t c)"), std::string::npos);  // RCCL keeps nccl*
  EXPECT_NE(t.text.find("hiprandState st;"), std::string::npos);
  EXPECT_EQ(converted(t.stats, "ncclComm_t"), 0);
}

TEST(PortTranslate, FullMasksAreDroppedOtherMasksAreLeft) {
  const auto t = translate(R"(__device__ float f(float v, unsigned m) {
  v += __shfl_xor_sync(0xffffffff, v, 1, 32);
  v += __shfl_down_sync(0xffffffffffffffffull, v, 2);
  unsigned long long b = __ballot_sync(0xFFFFFFFFu, v > 0);
  v += __shfl_sync(m, v, 0);
  return v + b;
}
)",
                           false);
  EXPECT_NE(t.text.find("v += __shfl_xor(v, 1, 32);"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("v += __shfl_down(v, 2);"), std::string::npos);
  EXPECT_NE(t.text.find("b = __ballot(v > 0);"), std::string::npos);
  EXPECT_NE(t.text.find("v += __shfl_sync(m, v, 0);"), std::string::npos);
  EXPECT_EQ(t.stats.masks_dropped, 3);
  const auto* u = left(t.stats, "__shfl_sync");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->first_line, 5);
  EXPECT_NE(u->reason.find("64-bit mask"), std::string::npos);
}

TEST(PortTranslate, AuditRulesBecomeComments) {
  const auto t = translate(R"(#define REDUCE(v) \
  v += __shfl_down_sync(0xffffffff, v, 16)
__global__ void k(int* p) {
  p[threadIdx.x % 32] = 0; // a comment already
  p[0] = __shfl_xor_sync(0xffffffff, p[1], 1, 64);
  /* a block
     comment */ p[threadIdx.x / 32] = 1; /* spanning
     lines */
}
)");
  EXPECT_EQ(t.text, R"(#include <hip/hip_runtime.h>  // dcukit-port: nvcc includes cuda_runtime.h itself
#define REDUCE(v) \
  v += __shfl_down(v, 16) // dcukit-port audit: wave64.full-mask (mask dropped)
__global__ void k(int* p) {
  p[threadIdx.x % 32] = 0; // a comment already // dcukit-port audit: wave64.warp-size-literal
  p[0] = __shfl_xor(p[1], 1, 64); // dcukit-port audit: wave64.full-mask (mask dropped)
  /* a block
     comment */ p[threadIdx.x / 32] = 1; /* spanning
     lines */
}
)");
  EXPECT_EQ(t.stats.annotated_lines, 3);
}

TEST(PortTranslate, AnnotationsInsideAMacroKeepItsContinuation) {
  const auto t = translate("#define LANE(i) \\\n  ((i) % 32 + threadIdx.x % 32) \\\n  /* end */\nint x;\n");
  EXPECT_EQ(t.text,
            "#define LANE(i) \\\n  ((i) % 32 + threadIdx.x % 32) /* dcukit-port audit: wave64.warp-size-literal */ \\\n"
            "  /* end */\nint x;\n");
  // The annotated translation still audits the same, and its marks are not suppressions.
  const auto again = porttest::audit(t.text);
  EXPECT_EQ(again.findings.size(), 1u);
  EXPECT_EQ(again.suppressed, 0);
}

TEST(PortTranslate, UntranslatedNamesAreReportedAsHipifyDoes) {
  const auto t = translate(R"(#define CUDA_CHECK(x) x
__device__ void f(float* p) {
  __syncwarp();
  p[0] = __ldcs(p);
  cudaSomethingNew(p);
  cudaSomethingNew(p);
  CUDA_CHECK(cudaDeviceSynchronize());
}
)",
                           false);
  const auto* a = left(t.stats, "__syncwarp");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->reason.find("6.2"), std::string::npos);
  ASSERT_NE(left(t.stats, "__ldcs"), nullptr);
  const auto* n = left(t.stats, "cudaSomethingNew");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->count, 2);
  EXPECT_EQ(n->first_line, 5);
  EXPECT_NE(n->reason.find("not in dcukit's mapping table"), std::string::npos);
  EXPECT_EQ(left(t.stats, "CUDA_CHECK"), nullptr);  // the project's own macro
  EXPECT_NE(t.text.find("CUDA_CHECK(hipDeviceSynchronize());"), std::string::npos);
}

TEST(PortTranslate, FilesGoToOutputOrUnderOutDir) {
  testutil::TempDir dir("port_translate");
  const std::string a = dir.write("in/a/k.cu", "#include \"common.cuh\"\nvoid f() { cudaDeviceSynchronize(); }\n");
  const std::string b = dir.write("in/common.cuh", "#include <cuda_runtime.h>\n");
  dcukit::port::TranslateRequest o;
  o.inputs = {dir.file("in")};
  o.out_dir = dir.file("out");
  auto r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->files.size(), 2u);
  EXPECT_EQ(dir.read("out/a/k.cu"), "#include \"common.cuh\"\nvoid f() { hipDeviceSynchronize(); }\n");
  EXPECT_EQ(dir.read("out/common.cuh"), "#include <hip/hip_runtime.h>\n");

  o = {};
  o.inputs = {a};
  o.output = dir.file("single.hip");
  r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(dir.read("single.hip").find("hipDeviceSynchronize"), std::string::npos);

  o.inputs = {a, b};  // -o takes one input
  r = dcukit::port::run(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("--out-dir"), std::string::npos);

  o.inputs = {a};
  o.output = a;  // never over the input
  r = dcukit::port::run(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("overwrite"), std::string::npos);
}

TEST(PortTranslate, ComputeModeTexturesAndCooperativeGroupsCollectives) {
  const auto t = translate(R"(#include <cooperative_groups/reduce.h>
int mode(int d) {
  int m = 0;
  cudaDeviceGetAttribute(&m, cudaDevAttrComputeMode, d);
  cudaTextureAddressMode a = cudaAddressModeClamp;
  return m == cudaComputeModeProhibited ? -1 : int(a);
}
)",
                           false);
  EXPECT_NE(t.text.find("hipDeviceAttributeComputeMode"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("hipComputeModeProhibited"), std::string::npos);
  EXPECT_NE(t.text.find("hipTextureAddressMode a = hipAddressModeClamp"), std::string::npos);
  ASSERT_NE(left(t.stats, "cooperative_groups/reduce.h"), nullptr);
}

// A HIP branch is HIP code already: nothing in it is renamed, whatever the rest of the file is.
// ggml's vendors/hip.h, translated on its own, was the case: `typedef hip_bfloat16 nv_bfloat16;`
// became `typedef hip_bfloat16 hip_bfloat16;`.
TEST(PortTranslate, HipBranchesAreLeftAsTheyAre) {
  const std::string source = R"(#include <cuda_runtime.h>
#if defined(__HIP_PLATFORM_AMD__)
typedef hip_bfloat16 nv_bfloat16;
#define WARP 64
static void sync_all() { cudaDeviceSynchronize(); }
#else
#include <cuda_bf16.h>
#endif
nv_bfloat16 x;
void g() { cudaDeviceSynchronize(); }
)";
  const auto t = translate(source, false);
  EXPECT_NE(t.text.find("typedef hip_bfloat16 nv_bfloat16;"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("static void sync_all() { cudaDeviceSynchronize(); }"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("void g() { hipDeviceSynchronize(); }"), std::string::npos) << t.text;  // shared code is
  EXPECT_NE(t.text.find("#include <hip/hip_runtime.h>"), std::string::npos) << t.text;         // still translated
  EXPECT_EQ(t.stats.hip_branch_refs, 2);  // nv_bfloat16 and cudaDeviceSynchronize in the HIP branch
  EXPECT_FALSE(t.stats.already_hip);
}

// A file that includes HIP's headers and no CUDA header is HIP already: copied unchanged.
TEST(PortTranslate, AnAlreadyHipFileIsCopiedUnchanged) {
  const std::string vendor_shim = R"(#pragma once
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_bfloat16.h>
#define cudaMalloc hipMalloc
#define cudaStream_t hipStream_t
typedef hip_bfloat16 nv_bfloat16;
static inline void sync_now() { cudaDeviceSynchronize(); }
)";
  const auto t = translate(vendor_shim, false);
  EXPECT_EQ(t.text, vendor_shim);
  EXPECT_TRUE(t.stats.already_hip);
  EXPECT_EQ(t.stats.converted_refs(), 0);
}

// A shim's own name is not renamed in shared code either; its uses are.
TEST(PortTranslate, ATypedefKeepsTheNameItDeclares) {
  const auto t = translate("#include <cuda_runtime.h>\ntypedef hipStream_t cudaStream_t;\n"
                           "using cudaEvent_t = hipEvent_t;\nvoid f(cudaStream_t s);\n",
                           false);
  EXPECT_NE(t.text.find("typedef hipStream_t cudaStream_t;"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("using cudaEvent_t = hipEvent_t;"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("void f(hipStream_t s);"), std::string::npos) << t.text;
}

// The real file, where ../shared has ggml's corpus.
TEST(PortTranslate, GgmlsHipVendorHeaderIsUnchanged) {
  const std::string path = std::string(DCUKIT_SOURCE_DIR) + "/../shared/corpus/cuda/ggml-cuda/vendors/hip.h";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << path << " is absent (a clone without ../shared); skipping";
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto t = translate(text, false);
  EXPECT_TRUE(t.stats.already_hip);
  EXPECT_EQ(t.text, text);
}
