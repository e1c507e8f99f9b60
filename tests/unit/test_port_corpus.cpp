// The audit on real code no one here wrote: ../shared/corpus/cuda/ggml-cuda (llama.cpp, MIT).
// Every finding below was checked by hand (docs/port.md, "Measured on ggml"); the files without
// findings are pinned as empty, so that a new false positive fails here.
#include <gtest/gtest.h>

#include <map>

#include "port/audit.h"
#include "port/port.h"
#include "tempdir.h"

using Strings = std::vector<std::string>;

namespace {

/// file (relative to ggml-cuda/) -> "rule:line:column" of each finding.
std::map<std::string, Strings> by_file(const dcukit::port::AuditReport& r, const std::string& root) {
  std::map<std::string, Strings> out;
  for (const auto& s : r.files) out[s.path.substr(root.size() + 1)];
  for (const auto& f : r.findings)
    out[f.file.substr(root.size() + 1)].push_back(std::string(dcukit::port::to_string(f.rule)) + ":" +
                                                  std::to_string(f.line) + ":" + std::to_string(f.column));
  return out;
}

dcukit::port::AuditReport audit_paths(const std::vector<std::string>& paths) {
  dcukit::port::AuditRequest o;
  o.paths = paths;
  auto r = dcukit::port::run(o);
  EXPECT_TRUE(r) << r.error().message;
  return r ? *r : dcukit::port::AuditReport{};
}

}  // namespace

TEST(PortCorpus, GgmlCudaAuditedTogether) {
  DCUKIT_REQUIRE_SHARED(root, "corpus/cuda/ggml-cuda");
  const auto r = audit_paths({root});
  const std::map<std::string, Strings> expected = {
      {"argmax.cu", {}},
      {"argmax.cuh", {}},
      // cuBLAS in shared code (mapped by vendors/hip.h); graphs behind USE_CUDA_GRAPH are not
      // reported: vendors/hip.h maps the graph names, so HIP graphs are the project's choice.
      {"common.cuh", {"lib.cublas:153:52"}},
      {"cp-async.cuh", {}},  // cp.async PTX only where CP_ASYNC_AVAILABLE, never on HIP
      {"cross-entropy-loss.cu", {}},
      {"mma.cuh", {}},  // tensor-core PTX only where NEW_MMA_AVAILABLE, never on HIP
      {"mmv.cu", {}},   // uses the physical warp size (64 on AMD) throughout
      {"mmv.cuh", {}},
      {"norm.cu", {}},  // s_sum[32] with WARP_SIZE 32 as the logical warp of every shuffle: correct
      {"norm.cuh", {}},
      {"quantize.cu", {}},
      {"quantize.cuh", {}},
      {"softmax.cu", {}},
      {"softmax.cuh", {}},
      // A real wave64 bug: warps counted with 32, rows indexed with warpSize (64 on AMD), so rows
      // run past splitD; and __launch_bounds__(splitD, 2), whose 2 HIP reads as waves per EU.
      {"ssm-scan.cu", {"api.launch-bounds:4:17", "wave64.warp-size-literal:16:28", "wave64.warp-size-literal:17:28"}},
      {"ssm-scan.cuh", {}},
      {"sum.cu", {}},  // CUB only where GGML_USE_HIP is undefined
      {"sum.cuh", {}},
      {"vendors/cuda.h", {}},                       // included only by a CUDA build
      {"vendors/hip.h", {"arch.cuda-arch:147:9"}},  // #define __CUDA_ARCH__ 1300
      {"vendors/musa.h", {}},                       // included only by a MUSA build
      {"wkv.cu", {}},
  };
  EXPECT_EQ(by_file(r, root), expected);
  EXPECT_EQ(r.files.size(), 22u);
  EXPECT_EQ(r.count(dcukit::port::Severity::error), 2);
  EXPECT_EQ(r.count(dcukit::port::Severity::warning), 2);
  EXPECT_EQ(r.count(dcukit::port::Severity::note), 1);
  // The message says why the ssm-scan finding is a real bug.
  for (const auto& f : r.findings) {
    if (f.line == 16 && f.file.find("ssm-scan.cu") != std::string::npos) {
      EXPECT_NE(f.why.find("warpSize, line 47"), std::string::npos) << f.why;
    }
  }
}

TEST(PortCorpus, GgmlCudaStatistics) {
  DCUKIT_REQUIRE_SHARED(root, "corpus/cuda/ggml-cuda");
  const auto r = audit_paths({root});
  int lines = 0, kernels = 0, launches = 0, api = 0;
  for (const auto& s : r.files) {
    lines += s.lines;
    kernels += s.kernels;
    launches += s.launches;
    api += s.cuda_api_refs;
  }
  EXPECT_EQ(lines, 3714);
  EXPECT_EQ(kernels, 16);
  EXPECT_EQ(launches, 43);
  EXPECT_EQ(api, 60);
}

TEST(PortCorpus, FilesAuditedAloneLackTheirVendorHeader) {
  DCUKIT_REQUIRE_SHARED(root, "corpus/cuda/ggml-cuda");
  // Without vendors/hip.h, nothing drops the 32-bit masks: argmax.cu's four are real for a
  // HIP 6.2+ build that does not define ggml's shim.
  // One finding for the repeated thing (the same mask to the same intrinsic), with its other lines.
  auto r = audit_paths({root + "/argmax.cu"});
  EXPECT_EQ(by_file(r, root)["argmax.cu"], (Strings{"wave64.full-mask:25:43"}));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].also, (std::vector<int>{26, 54, 55}));
  // common.cuh alone: WARP_SIZE is still a logical width (passed as a template default), and only
  // the two __CUDA_ARCH__ tests whose HIP outcome depends on it are reported (regressions).
  r = audit_paths({root + "/common.cuh"});
  Strings arch, warp;
  for (const auto& f : r.findings) {
    if (f.rule == dcukit::port::RuleId::arch_cuda_arch) arch.push_back(std::to_string(f.line));
    if (f.rule == dcukit::port::RuleId::wave64_warp_size_literal) warp.push_back(std::to_string(f.line));
  }
  EXPECT_EQ(arch, (Strings{"202", "293"}));
  EXPECT_TRUE(warp.empty());
}
