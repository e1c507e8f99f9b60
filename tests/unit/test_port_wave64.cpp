// The wave64.* rules: each hazard, and the correct form next to it (no finding).
#include <gtest/gtest.h>

#include <algorithm>

#include "test_port_helpers.h"

using dcukit::port::RuleId;
using dcukit::port::Severity;
using porttest::audit;
using porttest::count;
using porttest::hits;
using Strings = std::vector<std::string>;

TEST(PortFullMask, LiteralMasksInSyncIntrinsics) {
  const auto r = audit(R"(__global__ void k(float* p, unsigned long long* q) {
  float v = p[threadIdx.x];
  v += __shfl_xor_sync(0xffffffff, v, 1, 64);
  v += __shfl_down_sync(0xFFFFFFFFu, v, 2, 64);
  q[0] = __ballot_sync(~0u, v > 0);
  __syncwarp(0xffffffff);
  if (__activemask() == 0xffffffff) p[0] = v;
})");
  EXPECT_EQ(hits(r, true), (Strings{"wave64.full-mask:3:24", "wave64.full-mask:4:25", "wave64.full-mask:5:24",
                                    "wave64.full-mask:6:14", "wave64.full-mask:7:25"}));
  EXPECT_EQ(r.findings[0].severity, Severity::error);
  EXPECT_NE(r.findings[0].why.find("0xffffffff"), std::string::npos);
}

TEST(PortFullMask, NamedMasksAndMacroBodies) {
  const auto r = audit(R"(#define FULL_MASK 0xffffffff
constexpr unsigned kAll = 0xffffffffu;
#define REDUCE(v) for (int o = 1; o < 64; o *= 2) v += __shfl_xor_sync(0xffffffff, v, o, 64)
__global__ void k(float* p) {
  float v = p[threadIdx.x];
  v += __shfl_xor_sync(FULL_MASK, v, 1, 64);
  v += __shfl_xor_sync(kAll, v, 1, 64);
  REDUCE(v);
})");
  // Each hazard is reported where the fix goes: the named masks at their definitions (lines 1 and
  // 2, naming their uses), the macro's at its definition (line 3), not where it is used (line 8).
  EXPECT_EQ(hits(r), (Strings{"wave64.full-mask:1", "wave64.full-mask:2", "wave64.full-mask:3"}));
  EXPECT_NE(r.findings[0].why.find("t.cu line 6"), std::string::npos) << r.findings[0].why;
}

TEST(PortFullMask, CorrectFormsAreLeftAlone) {
  const auto r = audit(R"cu(__global__ void k(float* p, unsigned long long m) {
  float v = p[threadIdx.x];
  v += __shfl_xor_sync(0xffffffffffffffffull, v, 1);   // a 64-bit mask
  v += __shfl_xor_sync(m, v, 1);                        // a mask computed at run time
  v += __shfl_xor(v, 1);                                // no mask at all
  // __shfl_xor_sync(0xffffffff, v, 1) in a comment
  const char* s = "__shfl_xor_sync(0xffffffff, v, 1)";
  p[0] = v + s[0];
#if !defined(__HIP_PLATFORM_AMD__)
  v += __reduce_add_sync(0xffffffff, 1);                // a CUDA-only branch
#endif
})cu");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortFullMask, AVendorMacroThatDropsTheMaskCoversItsIntrinsic) {
  // ggml's vendors/hip.h: the 32-bit mask never reaches HIP.
  const porttest::Sources files = {
      {"common.cuh", "#if defined(GGML_USE_HIP)\n#include \"vendors/hip.h\"\n#endif\n"},
      {"vendors/hip.h",
       "#define __shfl_xor_sync(mask, var, laneMask, width) __shfl_xor(var, laneMask, width)\n"
       "#define __shfl_sync(mask, var, srcLane, width) __shfl_sync(mask, var, srcLane, width)\n"},
      {"k.cu",
       "#include \"common.cuh\"\n__device__ float f(float v) {\n"
       "  v += __shfl_xor_sync(0xffffffff, v, 1, 64);\n"
       "  return v + __shfl_sync(0xffffffff, v, 0, 64);\n}\n"}};
  const auto r = audit(files);
  // The second macro keeps the mask, so it is no shim.
  ASSERT_EQ(count(r, RuleId::wave64_full_mask), 1);
  const auto mask = std::find_if(r.findings.begin(), r.findings.end(),
                                 [](const auto& f) { return f.rule == RuleId::wave64_full_mask; });
  EXPECT_EQ(mask->file, "k.cu");
  EXPECT_EQ(mask->line, 4);
  // Audited alone, the same file has both findings: the shim is not among the files.
  const auto alone = audit({files[2]});
  EXPECT_EQ(count(alone, RuleId::wave64_full_mask), 2);
}

TEST(PortWarpSizeLiteral, LiteralWarpArithmeticOnThreadIndices) {
  const auto r = audit(R"(__global__ void k(int* p) {
  const int tid = threadIdx.x;
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  p[0] = tid % 32;
  p[1] = threadIdx.x & 31;
  p[2] = tid / 32;
  p[3] = gid >> 5;
  p[4] = (threadIdx.x + 1) % 32;
  p[5] = __shfl_down(p[5], 1);
})");
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:4", "wave64.warp-size-literal:5", "wave64.warp-size-literal:6",
                              "wave64.warp-size-literal:7", "wave64.warp-size-literal:8"}));
  ASSERT_EQ(r.findings.size(), 5u);
  EXPECT_NE(r.findings[1].why.find("threadIdx.x & 31"), std::string::npos);
}

TEST(PortWarpSizeLiteral, ALaneNumberWhereNoLanesTalkOnlySplitsWork) {
  // bitsandbytes' kspmm_coo_very_sparse_naive (port-heldout6): warp_id = threadIdx.x / 32 picks
  // columns, and no shuffle, vote or lane mask follows: right at any width.
  EXPECT_TRUE(hits(audit(R"(__global__ void k(int* p) {
  const int warp_id = threadIdx.x / 32;
  const int warp_idx = threadIdx.x % 32;
  p[warp_id * 32 + warp_idx] = 0;
})"))
                  .empty());
  // Beside the hardware width (ggml's ssm-scan: tid / 32, then rows wid * warpSize), or in a
  // function that calls a shuffling helper (or ATen's WARP_SHFL), the same numbers are reported.
  EXPECT_EQ(hits(audit(R"(__global__ void k(int* p) {
  const int wid = threadIdx.x / 32;
  p[wid * warpSize] = 0;
})")),
            (Strings{"wave64.warp-size-literal:2"}));
  EXPECT_EQ(hits(audit(R"(__device__ int reduce(int v) { return v + __shfl_xor_sync(0xffffffffffffffffull, v, 1, 32); }
__global__ void k(int* p) {
  const int lane = threadIdx.x % 32;
  p[lane] = reduce(p[lane]);
})")),
            (Strings{"wave64.warp-size-literal:1", "wave64.warp-size-literal:3"}));  // 1: the width of 32
  EXPECT_EQ(hits(audit(R"(__global__ void k(float* p) {
  const int src = (threadIdx.x + 1) & 31;
  p[threadIdx.x] = WARP_SHFL(p[threadIdx.x], src);
})")),
            (Strings{"wave64.warp-size-literal:2"}));
}

TEST(PortWarpSizeLiteral, ArithmeticThatIsNotAWarpIsLeftAlone) {
  // Regressions from ggml's quantize.cu: i0 and iqs index quantization blocks of 32 values.
  const auto r = audit(R"(__global__ void q(int* y, long ne0) {
  const long i0 = ((long)blockDim.x * blockIdx.y + threadIdx.x) * 4;
  const long iqs = i0 % 128;
  if (iqs % 32 != 0) return;
  y[iqs / 32] = i0 % 32;
  y[0] = threadIdx.x % 4;            // a quad, not a warp
  y[1] = threadIdx.x % warpSize;     // the hardware width
  y[2] = ne0 % 32;                   // not a thread index
  // tid % 32 in a comment
})");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortWarpSizeLiteral, ReductionFromSixteenOverTheWholeWavefront) {
  const auto r = audit(R"(__device__ float a(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o);
  return v;
}
__device__ float b(float v) {
  for (int o = 16; o > 0; o /= 2) { v += __shfl_down(v, o, 32); }
  return v;
}
__device__ float c(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  return v;
})");
  // a: no width, the whole wavefront; b: an explicit width of 32 (a literal: a warning); c: correct.
  EXPECT_EQ(hits(r, true), (Strings{"wave64.warp-size-literal:2:16", "wave64.warp-size-literal:6:60"}));
  EXPECT_EQ(r.findings[0].severity, Severity::error);
  EXPECT_EQ(r.findings[1].severity, Severity::warning);
}

TEST(PortWarpSizeLiteral, AWarpSizeConstantFixedAt32AndItsUses) {
  const auto r = audit(R"(constexpr int WARP_SIZE = 32;
__global__ void k(float* p) {
  const int lane = threadIdx.x % WARP_SIZE;
  float v = p[threadIdx.x];
  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  p[lane] = __shfl(v, 0);
})");
  // Reported once, at the definition, with the uses in warp-synchronous code as its lines: the
  // broadcast from lane 0 has no width, so lanes 32-63 read the other half's sum.
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:1"}));
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{3, 5}));
  EXPECT_NE(r.findings[0].why.find("2 uses"), std::string::npos) << r.findings[0].why;
}

TEST(PortWarpSizeLiteral, AHalfWavefrontReductionTreeIsALogicalWarp) {
  // How_to_optimize_in_GPU's reduce_v7: width-less shfl_down from WARP_SIZE / 2, partials indexed by
  // tid / 32: each 32-lane half of a wavefront reduces on its own and lane 0 of each half stores
  // its own warp's sum. Right on wave64 as written; widening the warp is a design choice.
  const char* tree = R"(#define WARP_SIZE 32
__device__ float reduce(float v) {
  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
__global__ void k(float* in, float* out) {
  __shared__ float sums[WARP_SIZE];
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  float v = reduce(in[threadIdx.x]);
  if (lane == 0) sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / WARP_SIZE ? sums[lane] : 0;
  if (warp == 0) v = reduce(v);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
})";
  const auto r = audit(tree);
  for (const auto& f : r.findings) EXPECT_NE(f.rule, RuleId::wave64_warp_size_literal) << f.line << ": " << f.why;
  // The same constant beside a vote, or beside a tree that starts at warpSize / 2 (exllamav2's
  // head_norm.cu: the butterfly spans the wavefront while the constant halves it), is reported.
  for (const std::string extra : {"  if (__any_sync(0xffffffff, v > 0)) out[0] = v;\n",
                                  "  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);\n"}) {
    std::string src = tree;
    src.insert(src.rfind("  if (threadIdx.x == 0)"), extra);
    const auto mixed = audit(src);
    Strings constant;
    for (const auto& h : hits(mixed))
      if (h.rfind("wave64.warp-size-literal", 0) == 0) constant.push_back(h);
    EXPECT_EQ(constant, (Strings{"wave64.warp-size-literal:1"})) << extra;
  }
}

TEST(PortWarpSizeLiteral, AConstantThatOnlySplitsWorkIsLeftAlone) {
  // No shuffle, vote or lane mask: WARP_SIZE only strides a loop, right at any width.
  const auto r = audit(R"(#define WARP_SIZE 32
__global__ void copy(const float* a, float* b, int n) {
  const int lane = threadIdx.x % WARP_SIZE;
  for (int i = lane; i < n; i += WARP_SIZE) b[i] = a[i];
})");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].why;
}

TEST(PortWarpSizeLiteral, AConstantUsedBesideACallToAWarpReduction) {
  // The kernel itself shuffles nothing, but the function it calls does: its lane test is warp-synchronous.
  const auto r = audit(R"(constexpr int kWarpSize = 32;
__device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);
  return v;
}
__global__ void k(float* p) {
  float v = warp_sum(p[threadIdx.x]);
  if (threadIdx.x % kWarpSize == 0) p[threadIdx.x / kWarpSize] = v;
})");
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:1"}));
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{8}));
}

TEST(PortWarpSizeLiteral, GgmlsLogicalWarpIsLeftAlone) {
  // WARP_SIZE is 32 on every platform, and every shuffle receives it as its width (directly, or as a
  // template default): on a 64-lane wavefront each half is a 32-lane logical warp. Correct.
  const auto r = audit(R"(#define WARP_SIZE 32
template <int width = WARP_SIZE>
__device__ float warp_reduce_sum(float x) {
  for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor(x, offset, width);
  return x;
}
__global__ void argmax(float* p) {
  float v = p[threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor(v, offset, WARP_SIZE));
  const int lane_id = threadIdx.x % WARP_SIZE;
  __shared__ float s_sum[32];
  if (lane_id == 0) s_sum[threadIdx.x / WARP_SIZE] = v;
  __syncthreads();
  v = warp_reduce_sum(s_sum[lane_id]);
  p[0] = v;
})");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortWarpSizeLiteral, MixingWithTheHardwareWidthIsSaid) {
  // ggml's ssm-scan.cu: warps counted with 32, rows indexed with warpSize.
  const auto r = audit(R"(__global__ void scan(const float* a, float* s) {
  const int tid = threadIdx.x;
  const int wid = tid / 32;
  const int wtid = tid % 32;
  for (int i = 0; i < 32; i += 2) s[(wid * warpSize + i) * 17 + wtid] = a[i];
})");
  EXPECT_EQ(hits(r), (Strings{"wave64.warp-size-literal:3", "wave64.warp-size-literal:4"}));
  EXPECT_NE(r.findings[0].why.find("warpSize, line 5"), std::string::npos) << r.findings[0].why;
}

TEST(PortBallotWidth, ThirtyTwoBitResults) {
  const auto r = audit(R"(typedef uint32_t lane_bits;
__global__ void k(int* p, bool b) {
  unsigned m = __ballot_sync(0xffffffffffffffffull, b);
  uint32_t n;
  n = __ballot(b);
  p[0] = __popc(__ballot(b));
  p[1] = (unsigned int)__activemask();
  lane_bits t = __ballot(b);
  p[2] = m + n + t;
})");
  EXPECT_EQ(hits(r), (Strings{"wave64.ballot-width:3", "wave64.ballot-width:5", "wave64.ballot-width:6",
                              "wave64.ballot-width:7", "wave64.ballot-width:8"}));
}

TEST(PortBallotWidth, SixtyFourBitResultsAreLeftAlone) {
  const auto r = audit(R"(__global__ void k(int* p, bool b) {
  unsigned long long m = __ballot(b);
  auto n = __ballot(b);
  uint64_t o;
  o = __ballot(b);
  p[0] = __popcll(__ballot(b)) + __ffsll(m) + n + o;
})");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortBallotWidth, StillAHazardInHipOnlyCode) {
  const auto r = audit(
      "#ifdef __HIP_PLATFORM_AMD__\n__device__ unsigned f(bool b) { unsigned m = __ballot(b); return m; }\n#endif\n");
  EXPECT_EQ(hits(r), (Strings{"wave64.ballot-width:2"}));
}

TEST(PortPerWarpShared, SizedFor32ButReadByAHardwareLane) {
  const auto r = audit(R"(__global__ void k(float* p) {
  __shared__ float partial[32];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) partial[warp] = p[threadIdx.x];
  __syncthreads();
  p[0] = partial[lane];
})");
  EXPECT_EQ(hits(r, true), (Strings{"wave64.per-warp-shared:2:28"}));
}

TEST(PortPerWarpShared, OversizedOrLogicalArraysAreLeftAlone) {
  // dcukit's own block_sum: sized for 32-lane warps (enough for 64), read only where written.
  const auto r = audit(R"(constexpr int kBlockSize = 256;
__device__ double block_sum(double v) {
  __shared__ double warp_sums[kBlockSize / 32];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  double s = 0;
  if (threadIdx.x == 0)
    for (int w = 0; w < int(blockDim.x) / warpSize; ++w) s += warp_sums[w];
  return s;
})");
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].code;
}

TEST(PortPerWarpShared, ReadByThreadIndexWithoutABoundOnTheWarps) {
  // One slot a wavefront, read back as if a block had 32 of them; the bounded read is right.
  const auto r = audit(R"(__global__ void k(const float* in, float* out) {
  __shared__ float partial[32];
  int tid = threadIdx.x;
  float v = in[tid];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  if (tid % warpSize == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid < 32) v = partial[tid];
  out[0] = v;
}
__global__ void ok(const float* in, float* out) {
  __shared__ float partial[32];
  int tid = threadIdx.x;
  float v = in[tid];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  if (tid % warpSize == 0) partial[tid / warpSize] = v;
  __syncthreads();
  if (tid < blockDim.x / warpSize) v = partial[tid];
  out[0] = v;
})");
  EXPECT_EQ(hits(r, true), (Strings{"wave64.per-warp-shared:2:28"}));
  EXPECT_NE(r.findings[0].why.find("thread index (line 8)"), std::string::npos) << r.findings[0].why;
}

TEST(PortMissedForms, MasksCastOrShiftedIn32Bits) {
  const auto r = audit(R"(__global__ void k(float* x, int n) {
  float v = x[threadIdx.x];
  v += __shfl_xor_sync(uint32_t(-1), v, 1);
  v += __shfl_down_sync(0xffffffff >> n, v, 1);
  v += __shfl_down_sync((1u << n) - 1, v, 1);
  v += __shfl_down_sync(0xffffffffffffffffull >> n, v, 1);
  x[threadIdx.x] = v;
})");
  EXPECT_EQ(hits(r, true), (Strings{"wave64.full-mask:3:24", "wave64.full-mask:4:25", "wave64.full-mask:5:25"}));
  EXPECT_NE(r.findings[1].why.find("shifted in 32 bits"), std::string::npos) << r.findings[1].why;
}

TEST(PortMissedForms, ATileBallotInThirtyTwoBitsAndALaneBit) {
  const auto r = audit(R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned b = tile.ballot(out[threadIdx.x] > 0);
  unsigned long long all = tile.ballot(out[threadIdx.x] > 1);
  int lane = threadIdx.x % warpSize;
  unsigned bit = 1 << lane;
  unsigned long long wide = 1ull << lane;
  if (b & bit & all & wide) out[threadIdx.x] = 0;
}
__global__ void logical(int* out) {
  int lane = threadIdx.x % 32;
  out[threadIdx.x] = 1 << lane;
})");
  // The 32-lane tile beside warpSize is a warning; the literal % 32 is reported by its own rule.
  Strings got = hits(r);
  EXPECT_EQ(count(r, RuleId::wave64_ballot_width), 2);
  EXPECT_NE(std::find(got.begin(), got.end(), "wave64.ballot-width:5"), got.end());
  EXPECT_NE(std::find(got.begin(), got.end(), "wave64.ballot-width:8"), got.end());
  EXPECT_NE(std::find(got.begin(), got.end(), "wave64.warp-size-literal:4"), got.end());
}

TEST(PortMissedForms, AFunctionsOwnMaskVariableAnswersForIt) {
  // Another function's `mask` holds the full mask; this one's is partial and is not dropped.
  const auto r = audit(R"(__global__ void a(float* x) {
  const unsigned mask = 0xffffffff;
  x[0] = __shfl_sync(mask, x[0], 0);
}
__global__ void b(float* x, int n) {
  const unsigned long long mask = (1ull << n) - 1;
  x[0] = __shfl_sync(mask, x[0], 0);
})");
  // Reported at the definition (the line to change), naming the use.
  EXPECT_EQ(hits(r), (Strings{"wave64.full-mask:2"}));
  EXPECT_NE(r.findings[0].why.find("used by __shfl_sync on line 3"), std::string::npos) << r.findings[0].why;
}

TEST(PortBallotWidth, ABallotKeptInThirtyTwoBitsIsReportedWhereItIsReadToo) {
  // SlabHash's helper methods and warp operations, as written there.
  const auto r = audit(R"(__device__ int find(unsigned data, unsigned key) {
  uint32_t isEmpty = (__ballot_sync(
      0xFFFFFFFF, (data == key)));
  return __ffs(isEmpty & 0x7fffffff) - 1;
}
__device__ void walk(unsigned data) {
  uint32_t work_queue = 0;
  while ((work_queue = __ballot_sync(0xFFFFFFFF, data > 0))) {
    uint32_t src_lane = __ffs(work_queue) - 1;
    int n = __popc(work_queue);
    data -= src_lane + n;
  }
}
__device__ int wide(unsigned data) {
  unsigned long long b = __ballot_sync(0xFFFFFFFFFFFFFFFFull, data > 0);
  return __ffsll(b);
})");
  std::vector<int> lines;
  for (const auto& f : r.findings)
    if (f.rule == RuleId::wave64_ballot_width) {
      lines.push_back(f.line);
      for (int l : f.also) lines.push_back(l);
    }
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{2, 4, 8, 9, 10}));
}

TEST(PortWarpSizeLiteral, OneWarpLaunchesAndHostWarpCountsOfThirtyTwo) {
  // cuda-samples: simpleHyperQ's sum<<<1, 32>>>, shfl_scan's width argument of 32, reduction's
  // per-warp shared memory sized threads / 32 and reduce7's partial warp, blockSize & 31.
  const auto r = porttest::audit(porttest::Sources{{"k.cu", R"(#include <cuda_runtime.h>
__global__ void sum(int* a) { a[0] += __shfl_down_sync(0xffffffffffffffffull, a[threadIdx.x], warpSize / 2); }
__global__ void scan(int* data, int width) { data[0] = __shfl_up_sync(0xffffffffffffffffull, data[0], 1, width); }
__global__ void plain(int* a) { a[threadIdx.x] = 0; }
void host(int* d, int threads, unsigned blockSize) {
  sum<<<1, 32>>>(d);
  scan<<<4, 256>>>(d, 32);
  plain<<<1, 32>>>(d);
  int smem = (threads / 32 + 1) * sizeof(int);
  unsigned maskLength = (blockSize & 31);
  int rows = threads / 64 + smem + maskLength;
  (void)rows;
})"}});
  std::vector<int> lines;
  for (const auto& f : r.findings)
    if (f.rule == RuleId::wave64_warp_size_literal) lines.push_back(f.line);
  EXPECT_EQ(lines, (std::vector<int>{6, 7, 9, 10})) << "plain<<<1, 32>>> shuffles nothing; / 64 is not a warp";
}
