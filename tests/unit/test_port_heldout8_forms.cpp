// The forms the ninth CUDA corpus (SageAttention, TransformerEngine v1.5, CTranslate2 before its
// ROCm port; port-heldout8 and docs/port.md) showed the audit missing, each in a few lines.
#include <gtest/gtest.h>

#include "port/audit.h"
#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout8Forms, ADroppedToolkitBranchListsThePtxItsMacrosGuard) {
  // SageAttention's mma.cuh: `#if __CUDACC_VER_MAJOR__ >= 11` defines LDMATRIX_M8N8X2_ENABLED under
  // a nested __CUDA_ARCH__ test; the ldmatrix PTX sits under `#ifdef LDMATRIX_M8N8X2_ENABLED`,
  // dead on HIP with it. The #else branch, HIP's own, is not listed.
  const auto r = audit(R"(#if (__CUDACC_VER_MAJOR__ >= 11)
#if (!defined(__CUDA_ARCH__) || (__CUDA_ARCH__ >= 750))
#define LDMATRIX_M8N8X2_ENABLED
#endif
#endif
__device__ void ld(unsigned* r, unsigned a) {
#ifdef LDMATRIX_M8N8X2_ENABLED
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
#else
  r[0] = a;
#endif
#if !defined(LDMATRIX_M8N8X2_ENABLED)
  r[1] = a;
#endif
}
)");
  const auto* f = at(r, RuleId::pp_cuda_only_macro, 1);
  ASSERT_TRUE(f) << hits(r).size();
  EXPECT_EQ(f->also, (std::vector<int>{2, 8}));
  EXPECT_NE(f->why.find("PTX and tests of CUDA's macros a port rewrites (lines 2, 8)"), std::string::npos) << f->why;
}

TEST(PortHeldout8Forms, AProjectsOwnCudaNamespaceAndHeadersAreNotLibcuxx) {
  // CTranslate2 keeps include/cuda/mpi_stub.h; TransformerEngine calls its own cuda::sm_count().
  const auto r = audit(Sources{{"utils.h", "#include <cuda_runtime.h>\n#include <cuda/mpi_stub.h>\n"},
                               {"transpose.cu", "#include <cuda_runtime.h>\nint f() { return cuda::sm_count(); }\n"}});
  EXPECT_TRUE(hits(r).empty()) << hits(r).front();
  // libcu++'s own headers have no suffix, or live under cuda/std/.
  const auto lib = audit(Sources{{"a.cuh", "#include <cuda/std/type_traits>\n#include <cuda/barrier>\n"}});
  EXPECT_EQ(hits(lib), (Strings{"lib.libcudacxx:1"}));
}
