// The forms the twelfth CUDA corpus (nvdiffrast 0.3.3, RAFT 23.06, cuCollections before any HIP
// work; port-heldout11 and docs/port.md) showed the audit missing, each in a few lines.
#include <gtest/gtest.h>

#include "port/audit.h"
#include "tempdir.h"
#include "test_port_helpers.h"

using namespace porttest;
using dcukit::port::RuleId;
using Strings = std::vector<std::string>;

TEST(PortHeldout11Forms, PtxVideoInstructionsAndBfindArePtx) {
  // nvdiffrast's Util.inl: 36 one-line wrappers of PTX's SIMD video instructions, and bfind.
  const auto r = audit(R"(#include <cuda_runtime.h>
__device__ int a(int x, int y) { int v; asm("vadd.s32.s32.s32 %0, %1.h0, %2.h0;" : "=r"(v) : "r"(x), "r"(y)); return v; }
__device__ int b(unsigned x, unsigned y, unsigned z) { unsigned v; asm("vmad.u32.u32.u32 %0, %1.b0, %2, %3;" : "=r"(v) : "r"(x), "r"(y), "r"(z)); return v; }
__device__ int c(unsigned x) { unsigned v; asm("bfind.u32 %0, %1;" : "=r"(v) : "r"(x)); return v; }
__device__ int d(int x, int y, int z) { int v; asm("vmax.s32.s32.s32.max %0, %1, %2, %3;" : "=r"(v) : "r"(x), "r"(y), "r"(z)); return v; }
)");
  EXPECT_EQ(hits(r), (Strings{"ptx.inline-asm:2", "ptx.inline-asm:3", "ptx.inline-asm:4", "ptx.inline-asm:5"}));
  // AMD's own vector instructions (v_add_u32) and x86's (vaddps) are not PTX.
  const auto other =
      audit(R"(__device__ int e(int x) { int v; asm("v_add_u32 %0, %1, %1" : "=v"(v) : "v"(x)); return v; }
void f() { asm("vaddps %xmm0, %xmm1, %xmm2"); }
)");
  EXPECT_EQ(count(other, RuleId::ptx_inline_asm), 0);
}

TEST(PortHeldout11Forms, LibcuxxNamesAreReportedWhereTheyAreUsed) {
  // cuCollections' static_map.inl takes cuda::thread_scope and cuda::atomic from the header that
  // includes <cuda/atomic>; the .inl is where a port rewrites them.
  const auto r = audit(Sources{{"map.cuh", "#include <cuda/std/atomic>\n#include \"map.inl\"\n"},
                               {"map.inl", R"(template <typename K, cuda::thread_scope Scope>
__device__ void put(cuda::atomic<K, Scope>* slot, K k) {
  slot->store(k, cuda::std::memory_order_relaxed);
}
)"}});
  const dcukit::port::Finding* f = nullptr;
  for (const auto& x : r.findings)
    if (x.file == "map.inl" && x.rule == RuleId::lib_libcudacxx) f = &x;
  ASSERT_TRUE(f) << (hits(r).empty() ? "" : hits(r).front());
  EXPECT_EQ(f->line, 1);
  EXPECT_EQ(f->also, (std::vector<int>{2, 3}));
  // Audited alone, with nothing including libc++'s headers, its own names are still its.
  const auto alone = audit(Sources{{"map.inl", "__device__ void g(cuda::atomic<int>* a) { a->load(); }\n"}});
  EXPECT_EQ(hits(alone), (Strings{"lib.libcudacxx:1"}));
  // A project's own namespace cuda is not libcu++ (TransformerEngine's cuda::sm_count()).
  const auto own =
      audit(Sources{{"util.h", "namespace cuda { int sm_count(); }\nint n() { return cuda::sm_count(); }\n"}});
  EXPECT_EQ(count(own, RuleId::lib_libcudacxx), 0);
}

TEST(PortHeldout11Forms, NvccsListOfArchitecturesIsAnArchTest) {
  // cuCollections' __config: <nv/target> is libcu++'s, and a macro defined from
  // __CUDA_ARCH_LIST__ decides what HIP drops.
  const auto r = audit(R"(#pragma once
#include <nv/target>
#define CUCO_CUDA_MINIMUM_ARCH _NV_FIRST_ARG(__CUDA_ARCH_LIST__)
#if (CUCO_CUDA_MINIMUM_ARCH >= 700)
#define CUCO_HAS_INDEPENDENT_THREADS
#endif
)");
  EXPECT_EQ(hits(r), (Strings{"lib.libcudacxx:2", "arch.cuda-arch:4"}));
  const auto* f = at(r, RuleId::arch_cuda_arch, 4);
  ASSERT_TRUE(f);
  EXPECT_NE(f->why.find("defined from __CUDA_ARCH_LIST__"), std::string::npos) << f->why;
  // With no #else, what HIP does is drop the branch.
  const auto plain = audit(R"(__device__ void f(unsigned* p) {
#if __CUDA_ARCH__ >= 700
  asm("activemask.b32 %0;" : "=r"(p[0]));
#endif
}
)");
  const auto* arch = at(plain, RuleId::arch_cuda_arch, 2);
  ASSERT_TRUE(arch);
  EXPECT_NE(arch->why.find("false on HIP, which drops this branch"), std::string::npos) << arch->why;
}

TEST(PortHeldout11Forms, ABallotWrappersDeclarationIsItsLine) {
  // RAFT's warp_primitives.cuh: the return type to change is four lines above the return.
  const auto r = audit(R"(#include <cuda_runtime.h>
__device__ uint32_t ballot(bool inFlag, uint32_t mask = 0xffffffffu)
{
#if CUDART_VERSION >= 9000
  return __ballot_sync(mask, inFlag);
#else
  return __ballot(inFlag);
#endif
}
)");
  const auto* f = at(r, RuleId::wave64_ballot_width, 7);
  ASSERT_TRUE(f) << (hits(r).empty() ? "" : hits(r).front());
  EXPECT_EQ(f->also, (std::vector<int>{2}));
}

TEST(PortHeldout11Forms, AFoldersHeadersWithoutASuffixAreSources) {
  // cuCollections' include/cuco/detail/__config: taken where its text reads as a header.
  testutil::TempDir dir("port_bare");
  dir.write("include/cuco/detail/__config",
            "// SPDX\n/* licence */\n #pragma once\n#if CUDART_VERSION >= 11000\n"
            "#define CUCO_HAS_CUDA_BARRIER\n#endif\n");
  dir.write("include/cuco/detail/bare_inc", "CUCO_VERSION 2\n");  // included, but not a header by its text
  dir.write("include/cuco/map.cuh", "#include <cuco/detail/bare_inc>\n__global__ void k() {}\n");
  dir.write("include/.git/objects/ab/cdef", "#pragma once\n");  // a hidden folder is not walked for them
  dir.write("include/cuco/Makefile", "# build\nall:\n\tnvcc map.cu\n");
  dir.write("include/cuco/README", "# include the header\n");
  dcukit::port::AuditRequest o;
  o.paths = {dir.file("include")};
  const auto r = dcukit::port::run(o);
  ASSERT_TRUE(r) << r.error().message;
  Strings files;
  for (const auto& s : r->files) files.push_back(s.path.substr(dir.path().size() + 1));
  EXPECT_EQ(files, (Strings{"include/cuco/detail/__config", "include/cuco/map.cuh"}));
}
