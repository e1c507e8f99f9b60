// The forms the thirteenth CUDA corpus (QServe's GEMM kernels, NCCL 2.19.3's device code,
// fast-hadamard-transform; port-heldout12 and docs/port.md) showed the audit missing or claiming.
#include <gtest/gtest.h>

#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout12Forms, WhatCudasBf16AndFp8HeadersDefineIsCudasOnly) {
  // NCCL's reduce_kernel.h: `#if defined(__CUDA_BF16_TYPES_EXIST__)` around every bf16 path, which
  // a HIP build drops without a word (HIP's bf16 header does not define it).
  const auto r = audit(R"(#include <cuda_runtime.h>
#include <cuda_bf16.h>
template <typename T> __device__ T add(T a, T b) { return a + b; }
#if defined(__CUDA_BF16_TYPES_EXIST__)
template <> __device__ __nv_bfloat16 add(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
#endif
)");
  EXPECT_EQ(hits(r), (Strings{"pp.cuda-only-macro:4"}));
}

TEST(PortHeldout12Forms, NcclsOwnTreeIsNoUseOfNccl) {
  // NCCL's src/include/device.h includes "nccl.h": the library is not reported to itself.
  const auto own = audit(Sources{{"nccl/src/include/device.h", "#include \"nccl.h\"\nncclDataType_t t;\n"}});
  EXPECT_EQ(count(own, RuleId::lib_nccl), 0);
  const auto user = audit(Sources{{"train/comm.cu", "#include <nccl.h>\nncclComm_t comm;\n"}});
  EXPECT_EQ(count(user, RuleId::lib_nccl), 1);
}
