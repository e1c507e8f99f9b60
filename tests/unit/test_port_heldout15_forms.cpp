// The forms the sixteenth CUDA corpus (SpQR's inference kernels, groute, gpu-arch-microbenchmark;
// port-heldout15 and docs/port.md) showed the audit missing, each in a few lines.
#include <gtest/gtest.h>

#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;

TEST(PortHeldout15Forms, AMaskBuiltFromA32BitFullMaskNamesItsSource) {
  // SpQR's spqr_cuda_kernel.cu: HALF_MASK is shifted out of a 32-bit FULL_MASK declared just before.
  const auto r = audit(R"(__device__ float f(float acc) {
  constexpr unsigned FULL_MASK = 0xffffffff;
  constexpr unsigned HALF_MASK = FULL_MASK >> 16u;
  return __shfl_down_sync(HALF_MASK, acc, 8);
}
__device__ float g(float acc, unsigned lanes) {
  constexpr unsigned SOME = 0x0000ffff;
  unsigned mask = SOME | lanes;
  return __shfl_down_sync(mask, acc, 8);
}
)");
  const auto* half = at(r, RuleId::wave64_full_mask, 3);
  ASSERT_TRUE(half) << hits(r).size();
  EXPECT_EQ(half->also, (std::vector<int>{2}));
  EXPECT_NE(half->why.find("built from the 32-bit full mask FULL_MASK (line 2)"), std::string::npos) << half->why;
  // A mask built from a partial one is reported at its declaration without a source line.
  const auto* other = at(r, RuleId::wave64_full_mask, 8);
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->also.empty());
}
