// The forms the fourteenth CUDA corpus (flashinfer 0.0.2, pytorch3d before its hipify, cuSZ 0.3.1;
// port-heldout13 and docs/port.md) showed the audit missing, each in a few lines.
#include <gtest/gtest.h>

#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout13Forms, AnAsmStringsEscapesAreWhitespace) {
  // flashinfer's mma.cuh: "{\n" ".reg .f32 ph;\n" "mma.sync..." read as the words "n.reg" and
  // "nmma.sync", so the PTX was not told; marlin's `:: "n"(n)` operands leaked into the text.
  const auto r = audit(R"(#include <cuda_runtime.h>
__device__ void f(float* d, unsigned* s) {
  asm volatile(
      "{\n"
      ".reg .f32 ph;\n"
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, ph, %1, ph}, {%2, %3, %4, %5}, {%6, %7}, {%8, 0., %9, 0.};\n"
      "}\n"
      : "=f"(d[0]), "=f"(d[1])
      : "r"(s[0]), "r"(s[1]), "r"(s[2]), "r"(s[3]), "r"(s[4]), "r"(s[5]), "f"(d[0]), "f"(d[1]));
}
template <int n> __device__ void wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n)); }
)");
  EXPECT_EQ(hits(r), (Strings{"ptx.inline-asm:3", "api.warp-matrix:3", "ptx.inline-asm:11"}));
  const auto* wait = at(r, RuleId::ptx_inline_asm, 11);
  ASSERT_TRUE(wait);
  EXPECT_NE(wait->why.find("`cp.async.wait_group %0;`"), std::string::npos) << wait->why;
}

TEST(PortHeldout13Forms, AMaskParameterTakenByReferenceIsItsInteger) {
  // pytorch3d's Pulsar: WARP_SUM(const cg::coalesced_group&, const uint& mask, const T& base).
  const auto r = audit(R"(#include <cuda_runtime.h>
template <typename T>
__device__ T warp_sum(const uint& mask, const T& base) {
  return base + __shfl_down_sync(mask, base, 1u);
}
)");
  EXPECT_EQ(hits(r), (Strings{"wave64.full-mask:3"}));
}

TEST(PortHeldout13Forms, ALibraryVendoredInAFolderIsTheLibrary) {
  // cuSZ: the system CUB where __has_include finds it, else its git submodule by a relative path.
  const auto r = audit(R"(#if __has_include(<cub/cub.cuh>)
#include <cub/cub.cuh>
#else
#include "../../external/cub/cub/cub.cuh"
#endif
)");
  const auto* f = at(r, RuleId::lib_cub, 2);
  ASSERT_TRUE(f) << (hits(r).empty() ? "" : hits(r).front());
  EXPECT_EQ(f->also, (std::vector<int>{4}));
  // A project's own header named like a library, by a relative path, is not it.
  EXPECT_EQ(count(audit("#include \"../include/cublas_helpers/api.h\"\n"), RuleId::lib_cublas), 0);
}
