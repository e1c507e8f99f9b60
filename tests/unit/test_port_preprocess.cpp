// Which code a HIP build compiles: three-valued #if evaluation, HIP-only and CUDA-only branches,
// macros the files define, include reachability, and __CUDA_ARCH__ traced through conditions.
#include <gtest/gtest.h>

#include "port/lexer.h"
#include "port/pp_expr.h"
#include "port/preprocess.h"
#include "test_port_helpers.h"

using dcukit::port::MacroInfo;
using dcukit::port::Reach;
using dcukit::port::SourceFile;
using dcukit::port::Tri;

namespace {

/// The truth of `expr` given a few known macros (name -> value, or -1: defined, unknown value).
Tri truth(const std::string& expr, std::map<std::string, long> known, bool* tainted = nullptr,
          const std::string& traced = "") {
  static std::vector<dcukit::port::LexedFile> keep;
  keep.push_back(dcukit::port::lex(expr));
  std::vector<const dcukit::port::Token*> toks;
  for (const auto& t : keep.back().tokens) toks.push_back(&t);
  auto lookup = [&](std::string_view n) -> MacroInfo {
    if (n == traced) return MacroInfo{Tri::unknown, false, nullptr, true};
    auto it = known.find(std::string(n));
    if (it == known.end()) return MacroInfo{};
    if (it->second == -2) return MacroInfo{Tri::no, false, nullptr};
    return MacroInfo{Tri::yes, false, nullptr};
  };
  return dcukit::port::condition_truth(toks, lookup, tainted);
}

/// The reach of the first token whose text is `marker` in file `file`.
Reach reach_of(const dcukit::port::Project& p, const std::string& marker, std::size_t file = 0) {
  const SourceFile& f = p.files[file];
  for (std::size_t i = 0; i < f.lexed.tokens.size(); ++i)
    if (f.lexed.tokens[i].text == marker) return f.reach(i);
  ADD_FAILURE() << marker << " not found";
  return Reach::shared;
}

}  // namespace

TEST(PortPreprocess, ThreeValuedConditions) {
  EXPECT_EQ(truth("1 + 2 * 3 == 7 && (0x10 >> 4) == 1", {}), Tri::yes);
  EXPECT_EQ(truth("defined(A) && !defined B", {{"A", -1}, {"B", -2}}), Tri::yes);
  EXPECT_EQ(truth("defined(UNKNOWN)", {}), Tri::unknown);
  // A known-false operand decides && whatever the other is; a known-true one decides ||.
  EXPECT_EQ(truth("defined(B) && UNKNOWN >= 800", {{"B", -2}}), Tri::no);
  EXPECT_EQ(truth("UNKNOWN >= 800 || defined(A)", {{"A", -1}}), Tri::yes);
  EXPECT_EQ(truth("UNDEF_KNOWN + 1", {{"UNDEF_KNOWN", -2}}), Tri::yes);  // undefined reads 0
  EXPECT_EQ(truth("__has_builtin(__builtin_x)", {}), Tri::unknown);
  EXPECT_EQ(truth("1 ? 2 : UNKNOWN", {}), Tri::yes);
  EXPECT_EQ(truth("(1", {}), Tri::unknown);  // malformed: unknown, never a crash
}

TEST(PortPreprocess, TaintTellsWhetherAMacroDecides) {
  bool tainted = false;
  EXPECT_EQ(truth("__CUDA_ARCH__ >= 800", {}, &tainted, "__CUDA_ARCH__"), Tri::unknown);
  EXPECT_TRUE(tainted);
  // ggml's explicit exclusion decides without __CUDA_ARCH__.
  EXPECT_EQ(truth("!(defined(H) && defined(A)) && __CUDA_ARCH__ >= 800 || (defined(H) && V >= 5)",
                  {{"H", -1}, {"A", -1}}, &tainted, "__CUDA_ARCH__"),
            Tri::unknown);
  EXPECT_FALSE(tainted);  // it depends on V, not on __CUDA_ARCH__
}

TEST(PortPreprocess, HipOnlyCudaOnlyAndSharedBranches) {
  const auto p = porttest::project({{"a.cu", R"(
int shared_code;
#ifdef __HIP_PLATFORM_AMD__
int hip_branch;
#else
int cuda_branch;
#endif
#if !defined(GGML_USE_HIP) && CUDART_VERSION >= 11070
int cuda_only;
#elif defined(MY_SWITCH)
int maybe;
#else
int hip_else;
#endif
#if defined(MY_PROJECT_HIP)
int user_switch;
#endif
)"}},
                                   {"MY_PROJECT_HIP"});
  EXPECT_EQ(reach_of(p, "shared_code"), Reach::shared);
  EXPECT_EQ(reach_of(p, "hip_branch"), Reach::hip_only);
  EXPECT_EQ(reach_of(p, "cuda_branch"), Reach::skipped);
  EXPECT_EQ(reach_of(p, "cuda_only"), Reach::skipped);
  EXPECT_EQ(reach_of(p, "maybe"), Reach::shared);  // MY_SWITCH is unknown
  EXPECT_EQ(reach_of(p, "hip_else"), Reach::shared);
  EXPECT_EQ(reach_of(p, "user_switch"), Reach::hip_only);  // --hip-define MY_PROJECT_HIP
}

TEST(PortPreprocess, MacrosTheFilesDefineFollowTheirBranches) {
  const auto p = porttest::project({{"common.cuh", R"(#pragma once
#define CC_TURING 750
#if (defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)) || __CUDA_ARCH__ >= 600
#define FP16_AVAILABLE
#endif
#if !(defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)) && __CUDA_ARCH__ >= CC_TURING
#define NEW_MMA_AVAILABLE
#endif
)"},
                                    {"mma.cuh", R"(#include "common.cuh"
#ifdef NEW_MMA_AVAILABLE
int tensor_cores;
#endif
#ifdef FP16_AVAILABLE
int halves;
#endif
)"}});
  EXPECT_EQ(p.pp.hip.lookup("FP16_AVAILABLE").defined, Tri::yes);
  EXPECT_EQ(p.pp.hip.lookup("NEW_MMA_AVAILABLE").defined, Tri::no);
  EXPECT_EQ(reach_of(p, "tensor_cores", 1), Reach::skipped);
  EXPECT_EQ(reach_of(p, "halves", 1), Reach::shared);
}

TEST(PortPreprocess, HeadersIncludedOnlyFromOneBuildFollowIt) {
  const auto p =
      porttest::project({{"common.cuh", R"(#if defined(GGML_USE_HIP)
#include "vendors/hip.h"
#else
#include "vendors/cuda.h"
#endif
)"},
                         {"vendors/hip.h", "int hip_vendor;\n#define __CUDA_ARCH__ 1300\n"},
                         {"vendors/cuda.h", "int cuda_vendor;\n"},
                         {"k.cu", "#include \"common.cuh\"\n#if __CUDA_ARCH__ >= 800\nint arch;\n#endif\n"}});
  EXPECT_EQ(reach_of(p, "hip_vendor", 1), Reach::hip_only);
  EXPECT_EQ(reach_of(p, "cuda_vendor", 2), Reach::skipped);
  // The vendor header's __CUDA_ARCH__ makes HIP take the >= 800 branch.
  EXPECT_EQ(p.pp.hip.lookup("__CUDA_ARCH__").defined, Tri::yes);
  EXPECT_EQ(reach_of(p, "arch", 3), Reach::shared);
}

TEST(PortPreprocess, IncludeGuardsAndUndefinedPlatformMacros) {
  const auto p = porttest::project({{"g.h", R"(#ifndef G_H
#define G_H
int guarded;
#ifdef __CUDA_ARCH__
int device_pass_only;
#endif
#if CUDART_VERSION >= 12000
int new_cuda;
#endif
#endif
)"}});
  EXPECT_EQ(reach_of(p, "guarded"), Reach::shared);
  EXPECT_EQ(reach_of(p, "device_pass_only"), Reach::skipped);  // HIP never defines __CUDA_ARCH__
  EXPECT_EQ(reach_of(p, "new_cuda"), Reach::skipped);          // nor CUDART_VERSION
}
