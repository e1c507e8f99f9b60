// The one CUDA-to-HIP table: it parses, it is consistent, and src/device/hip/vendor.h agrees
// with it name for name (the project never holds two mappings that disagree).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "port/hip_map.h"
#include "port/lexer.h"

using dcukit::port::hip_map;
using dcukit::port::parse_hip_map;

TEST(PortHipMap, TheCompiledTableParses) {
  const auto& m = hip_map();
  EXPECT_GT(m.size(), 500u);
  const std::set<std::string> kinds = {"runtime", "driver",   "type",      "enum",   "define",   "header",
                                       "device",  "sync",     "namespace", "cublas", "cublasLt", "curand",
                                       "cufft",   "cusparse", "nccl",      "cudnn"};
  const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*"), header("[A-Za-z0-9_/.]+");
  for (const auto& [cuda, h] : m) {
    EXPECT_TRUE(kinds.count(h.kind)) << cuda << ": kind " << h.kind;
    if (h.hip.empty()) {
      EXPECT_FALSE(h.note.empty()) << cuda << " has no HIP name and no note saying what to do";
      continue;
    }
    EXPECT_TRUE(std::regex_match(h.hip, h.kind == "header" ? header : identifier)) << cuda << " -> " << h.hip;
  }
}

TEST(PortHipMap, MalformedOrRepeatedLinesAreRefused) {
  EXPECT_TRUE(parse_hip_map("# comment\n\ncudaFree\thipFree\truntime\n"));
  auto bad = parse_hip_map("cudaFree hipFree runtime\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(":1:"), std::string::npos);
  auto twice = parse_hip_map("cudaFree\thipFree\truntime\n# x\ncudaFree\thipFree\truntime\n");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find(":3: cudaFree is mapped twice"), std::string::npos);
}

TEST(PortHipMap, HasTheNamesTheDeviceLayerWillNeed) {
  // Peer copies, flags and events the device layer is expected to add to vendor.h.
  for (const char* n : {"cudaDeviceCanAccessPeer",
                        "cudaDeviceEnablePeerAccess",
                        "cudaDeviceDisablePeerAccess",
                        "cudaMemcpyPeer",
                        "cudaMemcpyPeerAsync",
                        "cudaStreamCreateWithFlags",
                        "cudaEventCreateWithFlags",
                        "cudaEventDisableTiming",
                        "cudaEventBlockingSync",
                        "cudaStreamWaitEvent",
                        "cudaStreamSynchronize",
                        "cudaEventSynchronize",
                        "cudaErrorPeerAccessAlreadyEnabled",
                        "cudaErrorPeerAccessNotEnabled",
                        "cudaIpcGetMemHandle",
                        "cudaIpcOpenMemHandle",
                        "cudaMemcpy2DAsync",
                        "cudaHostGetDevicePointer",
                        "cudaDeviceSynchronize",
                        "cudaMallocAsync",
                        "cudaFreeAsync"}) {
    auto it = hip_map().find(n);
    ASSERT_NE(it, hip_map().end()) << n;
    EXPECT_EQ(it->second.hip, "hip" + std::string(n).substr(4)) << n;
  }
}

TEST(PortHipMap, VendorHeaderAgreesWithTheTable) {
  const std::string path = std::string(DCUKIT_SOURCE_DIR) + "/src/device/hip/vendor.h";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto f = dcukit::port::lex(text);
  int checked = 0;
  for (const auto& d : f.directives) {
    if (d.name != "define") continue;
    std::vector<const dcukit::port::Token*> t;
    for (std::size_t i = d.first; i < d.end; ++i)
      if (f.tokens[i].kind != dcukit::port::TokenKind::comment) t.push_back(&f.tokens[i]);
    if (t.empty()) continue;
    const std::string& name = t[0]->text;
    const bool function_like = t.size() > 1 && t[1]->text == "(" && t[1]->begin == t[0]->end;
    if (!function_like && t.size() == 2 && name.rfind("cu", 0) == 0) {
      // #define cudaX hipY: the table must say the same.
      auto it = hip_map().find(name);
      ASSERT_NE(it, hip_map().end()) << "vendor.h maps " << name << " but data/hip_map.tsv does not";
      EXPECT_EQ(it->second.hip, t[1]->text) << "vendor.h and data/hip_map.tsv disagree on " << name;
      ++checked;
    } else if (function_like && name.size() > 5 && name.compare(name.size() - 5, 5, "_sync") == 0) {
      // #define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta): the translator's rewrite.
      auto it = hip_map().find(name);
      ASSERT_NE(it, hip_map().end()) << name;
      EXPECT_EQ(it->second.kind, "sync");
      std::size_t close = 2;
      while (close < t.size() && t[close]->text != ")") ++close;
      ASSERT_LT(close + 1, t.size());
      EXPECT_EQ(it->second.hip, t[close + 1]->text) << name;
      EXPECT_NE(t[2]->text, "") << name;
      for (std::size_t i = close + 1; i < t.size(); ++i) EXPECT_NE(t[i]->text, t[2]->text) << name << " uses its mask";
      ++checked;
    }
  }
  EXPECT_GE(checked, 40) << "vendor.h's mapping lines were not found";
}
