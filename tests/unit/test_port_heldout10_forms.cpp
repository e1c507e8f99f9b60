// The forms the eleventh CUDA corpus (lightseq 3.0.1, pytorch_scatter 2.0.9 before its ROCm build,
// xgboost 1.7.0's GPU tree code; port-heldout10 and docs/port.md) showed the audit claiming wrongly.
#include <gtest/gtest.h>

#include "port/audit.h"
#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout10Forms, OnlyThrustsCudaSystemIsReportedWithEachNamesFirstUse) {
  // xgboost's device_helpers.cuh: plain Thrust is rocThrust as it is; its CUDA system is not.
  const auto r = audit(R"(#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/system/cuda/error.h>
void f(thrust::device_vector<int>& v) {
  thrust::sort(thrust::cuda::par, v.begin(), v.end());
  auto& c = thrust::cuda_category();
  thrust::sort(thrust::cuda::par, v.begin(), v.end());
}
)");
  EXPECT_EQ(hits(r), (Strings{"lib.thrust:3"}));
  const auto* f = at(r, RuleId::lib_thrust, 3);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->also, (std::vector<int>{5, 6}));
  EXPECT_NE(f->why.find("thrust::cuda::par"), std::string::npos) << f->why;
  // Plain Thrust alone, included or named, is no finding.
  const auto plain = audit(R"(#include <thrust/device_vector.h>
namespace thrust { template <> struct less<float>; }
void g(thrust::device_vector<int>& v) { thrust::fill(v.begin(), v.end(), 0); }
)");
  EXPECT_TRUE(hits(plain).empty()) << hits(plain).front();
}

TEST(PortHeldout10Forms, ATorchExtensionsCudaHeadersBringTheRuntime) {
  // pytorch_scatter's scatter_cuda.cu: torch's hipify adds hip/hip_runtime.h to a file with kernels.
  const auto r = audit(Sources{{"scatter_cuda.cu", R"(#include <ATen/cuda/CUDAContext.h>
__global__ void k(float* p) { p[threadIdx.x] = 0; }
void f(float* p) { k<<<1, 64>>>(p); }
)"}});
  EXPECT_EQ(count(r, RuleId::api_implicit_runtime), 0);
}

TEST(PortHeldout10Forms, EachFilesOwnNameForTheFullMaskIsReportedInThatFile) {
  // pytorch_scatter: segment_coo_cuda.cu and segment_csr_cuda.cu each `#define FULL_MASK 0xffffffff`.
  const auto r = audit(Sources{{"segment_coo_cuda.cu", R"(#include <cuda_runtime.h>
#define FULL_MASK 0xffffffff
__device__ float up(float v) { return __shfl_up_sync(FULL_MASK, v, 1); }
)"},
                               {"segment_csr_cuda.cu", R"(#include <cuda_runtime.h>
#define FULL_MASK 0xffffffff
__device__ float down(float v) { return __shfl_down_sync(FULL_MASK, v, 1); }
)"}});
  EXPECT_EQ(hits(r), (Strings{"wave64.full-mask:2", "wave64.full-mask:2"}));
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_NE(r.findings[0].file, r.findings[1].file);
}
