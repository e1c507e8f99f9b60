// Every file of ../shared/samples is detected and read without error, and each one has a test
// that checks its figures by hand (the list below; a new sample without one fails here). The
// copies in tests/fixtures/telemetry/samples are what the other tests read, so that they run in a
// user's clone; they must equal ../shared's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tempdir.h"
#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

namespace fs = std::filesystem;

// The samples whose figures a test of test_telemetry_{hy_smi,rocm_smi,amd_smi,nvidia_smi,
// other_tools,dcu_misc}.cpp checks against values read by hand from the file.
const std::set<std::string> kCheckedByHand = {
    "amd-smi/metric-p-json-units-changelog.txt",
    "amd-smi/metric-pcie-mi300x-changelog.txt",
    "amd-smi/metric-throttle-mi300x-changelog.txt",
    "amd-smi/metric-usage-mi300x-xcp-changelog.txt",
    "amd-smi/monitor-ptv-32-partitions-changelog.txt",
    "amd-smi/monitor-watch-8xmi300x-under-gst.txt",
    "amd-smi/static-mi300a-text-docs-partial.txt",
    "amd-smi/static-mi350x-text-partial.txt",
    "amd-smi/topology-8gpu-xgmi-bdf-tables-changelog.txt",
    "amd-smi/topology-cndz-8gpu-changelog.txt",
    "amd-smi/topology-json-2gpu-pcie-changelog.txt",
    "dcgm/diag-r1-v100-pass.txt",
    "dcgm/diag-r2-v100-pass-truncated.txt",
    "dcgm/diag-r2-verbose-v100-pass.txt",
    "dcgm/diag-r3-fail-early-8xh100-cuinit-fail.txt",
    "dcgm/diag-r3-v100-pass.txt",
    "dcgm/diag-r3-verbose-v100-pass.txt",
    "dcu-misc/das-dtk-version-strings-quoted.txt",
    "dcu-misc/gpustack-runtime-detect-8xk100ai-dtk24.04.3-derived.txt",
    "dcu-misc/gpustack-runtime-detect-k100ai-hycu-6.3.28-dtk25.04.4-partial.txt",
    "dcu-misc/lsmod-hydcu-vs-hycu-and-lspci-k100ai.txt",
    "dcu-misc/lspci-tree-c3000-device-6430-a110-excerpt.txt",
    "dcu-misc/pip-list-das-dtk2604-version-strings-excerpt.txt",
    "dcu-misc/secondary-claims-hy-smi-behaviour-NOT-OUTPUT.txt",
    "dcu-misc/sysfs-values-card1-hygon-dcu-exporter-notes.txt",
    "hy-smi/a-partial-productname-k100ai.txt",
    "hy-smi/json-k100ai-8card-partial-gpustack2032.txt",
    "hy-smi/json-k100ai-c3000-vendor-partial-gpustack3257.txt",
    "hy-smi/json-pretty-dcu-gfx928-dtk24.04.3-gpustack-REDACTED.txt",
    "hy-smi/json-z100l-stderr-interleaved-dtk24.04.3.txt",
    "hy-smi/plain-dcu-4card-300w-mode-na-dtk24.04.txt",
    "hy-smi/plain-dcu-4card-800w-k100ai-dtk24.04.1-paddlenlp.txt",
    "hy-smi/plain-dcu-8card-600w-manual-k100ai-dtk24.04.3.txt",
    "hy-smi/plain-hcu-1card-400w-dec-enc-mixed-host.txt",
    "hy-smi/plain-hcu-8card-800w-dec-enc.txt",
    "hy-smi/plain-hcu-8card-800w-partial-vram-busy-indented.txt",
    "hy-smi/plain-hcu-8card-800w-training-load-a.txt",
    "hy-smi/plain-hcu-8card-k100ai-400w-idle.txt",
    "hy-smi/plain-hcu-8card-k100ai-in-pod-vram90.txt",
    "hy-smi/showbus-hcu-8card-sn-na.txt",
    "hy-smi/showmemavailable-hcu-8card-k100ai.txt",
    "hy-smi/showproductname-empty-card-series-k100.txt",
    "hy-smi/showtopo-numa-section-only-hcu-8card.txt",
    "nvidia-smi/L-h100-mig.txt",
    "nvidia-smi/default-table-h100-idle.txt",
    "nvidia-smi/default-table-h100-mig-idle.txt",
    "nvidia-smi/dmon-h100-load.txt",
    "nvidia-smi/q-h100-80gb-idle.txt",
    "nvidia-smi/q-h100-80gb-load.txt",
    "nvidia-smi/q-h100-mig-idle.txt",
    "nvidia-smi/query-gpu-csv-allfields-h100-idle.txt",
    "nvidia-smi/query-gpu-csv-allfields-l40s-idle.txt",
    "nvidia-smi/topo-m-8x4090-pcie-sys-2nic-tabs.txt",
    "nvidia-smi/topo-m-8xh100-nvlink-nv18-no-nic.txt",
    "nvidia-smi/topo-m-dgx-a100-nv12-12nic-partial.txt",
    "nvidia-smi/topo-m-h100-single-gpu-ansi.txt",
    "rocm-smi/a-json-mi250-rocm5-wandb-fixture.txt",
    "rocm-smi/i-mi300x-tabs-na-partial.txt",
    "rocm-smi/json-rx7800xt-rocm6.2.4-gpustack.txt",
    "rocm-smi/plain-2gpu-expected-integer-errors-na.txt",
    "rocm-smi/plain-4xmi210-degree-sign.txt",
    "rocm-smi/plain-8xmi300x-ansi-italic-subheader-stuck-vram.txt",
    "rocm-smi/plain-dgpu-plus-apu-exception-mapat-none-unsupported.txt",
    "rocm-smi/showproductname-json-mi250x.txt",
    "rocm-smi/showtopo-8xmi308x-xgmi-lowpower-warning.txt",
    "rocm-smi/u-showmeminfo-vram-8xmi308x-bytes.txt",
    "rocminfo/amd-gfx1101-rx7800xt-rocm6.2.4-gpustack-whitespace-normalized.txt",
    "rocminfo/dcu-gfx928-k1xx_ai-dtk24.04.3-gpustack-REDACTED.txt",
    "rocminfo/mi300x-8gpu-rocm6.2.3-first-gpu-agent.txt",
    "rvs/rvs-g-8xmi300x.txt",
    "rvs/rvs-gm-json-tail-xgmi-mi300x-partial.txt",
    "rvs/rvs-gst-mi300x-partial.txt",
    "rvs/rvs-modules-features.md.txt",
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> sample_files(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".txt") out.push_back(fs::relative(e.path(), root).string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(TelemetrySamples, EverySharedSampleIsReadAndCheckedByHand) {
  DCUKIT_REQUIRE_SHARED(dir, "samples");
  const auto files = sample_files(dir);
  ASSERT_FALSE(files.empty());
  for (const auto& rel : files) {
    SCOPED_TRACE(rel);
    auto s = read_capture_file((fs::path(dir) / rel).string());
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_FALSE(s->format.empty());
    EXPECT_TRUE(!s->devices.empty() || !s->warnings.empty() || !s->checks.empty() || !s->topology.links.empty())
        << "read, but nothing came of it and no warning says why";
    EXPECT_TRUE(kCheckedByHand.count(rel)) << "no test checks this sample's figures; add one";
    const fs::path copy = testutil::telemetry_fixture("samples/" + rel);
    ASSERT_TRUE(fs::exists(copy)) << "copy it to tests/fixtures/telemetry/samples/ (with its line in README.md)";
    EXPECT_EQ(slurp(copy), slurp(fs::path(dir) / rel)) << "the fixture copy differs from ../shared";
  }
  EXPECT_EQ(files.size(), kCheckedByHand.size()) << "a hand-checked sample is gone from ../shared/samples";
}

TEST(TelemetrySamples, EveryFixtureCopyIsRead) {
  const auto files = sample_files(testutil::telemetry_fixture("samples"));
  EXPECT_EQ(files.size(), kCheckedByHand.size());
  for (const auto& rel : files) {
    SCOPED_TRACE(rel);
    EXPECT_TRUE(kCheckedByHand.count(rel));
    auto s = read_capture_file(testutil::telemetry_fixture("samples/" + rel));
    EXPECT_TRUE(s) << (s ? "" : s.error().message);
  }
}

TEST(TelemetrySamples, UnknownAndEmptyFilesAreBadInputNamingTheFile) {
  testutil::TempDir tmp("telemetry_unknown");
  const auto prose = tmp.write("notes.txt", "The cluster was slow on Tuesday.\nWe rebooted it.\n");
  auto s = read_capture_file(prose);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find(prose), std::string::npos);
  EXPECT_NE(s.error().message.find("hy-smi table"), std::string::npos);  // the formats known
  EXPECT_NE(s.error().message.find("nvidia-smi -q"), std::string::npos);
  const auto empty = tmp.write("empty.txt", "\n\n");
  auto e = read_capture_file(empty);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("empty"), std::string::npos);
  auto missing = read_capture_file(tmp.file("absent.txt"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("absent.txt"), std::string::npos);
}

}  // namespace
}  // namespace dcukit::telemetry
