// rocminfo, dcgmi diag and ROCm Validation Suite captures of ../shared/samples, checked by hand.
#include <gtest/gtest.h>

#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

using testutil::has_fact;
using testutil::has_warning;
using testutil::read_sample;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const Check& check(const Snapshot& s, const std::string& name) {
  static const Check kNone;
  for (const auto& c : s.checks)
    if (c.name == name) return c;
  ADD_FAILURE() << "no check " << name;
  return kNone;
}

TEST(TelemetryRocminfo, ConsumerCardWhitespaceNormalised) {
  const auto s = read_sample("rocminfo/amd-gfx1101-rx7800xt-rocm6.2.4-gpustack-whitespace-normalized.txt");
  EXPECT_EQ(s.format, "rocminfo");
  ASSERT_EQ(s.devices.size(), 1u);  // the CPU agent is not a device
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "AMD Radeon RX 7800 XT");
  EXPECT_EQ(d.arch, "gfx1101");
  EXPECT_EQ(d.uuid, "GPU-5c88007d760374f3");
  EXPECT_EQ(d.device_id, "0x747e");     // Chip ID 29822(0x747e)
  EXPECT_EQ(d.bus_id, "0000:03:00.0");  // BDFID 768
  EXPECT_EQ(d.compute_units, 60);
  EXPECT_EQ(d.sclk_max_mhz, 2254);
  EXPECT_EQ(d.memory_total_bytes, 16760832ull * 1024);  // the VRAM pool, 16760832 KB
  EXPECT_EQ(d.vendor, Vendor::amd);
  EXPECT_EQ(d.driver_version, "6.2.4");  // "ROCk module version 6.2.4 is loaded"
  EXPECT_TRUE(has_fact(s, "kernel_module", "ROCk 6.2.4"));
}

TEST(TelemetryRocminfo, HygonDcuRedacted) {
  const auto s = read_sample("rocminfo/dcu-gfx928-k1xx_ai-dtk24.04.3-gpustack-REDACTED.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "K1xx_AI");
  EXPECT_EQ(d.arch, "gfx928");
  EXPECT_EQ(d.uuid, "GPU-7100fa8866904061");
  EXPECT_EQ(d.vendor, Vendor::hygon);  // Device Type: DCU, Vendor Name: HYGON
  EXPECT_EQ(d.device_id, "0x6210");
  // The uploader truncated these decimals; they are read as the file prints them.
  EXPECT_EQ(d.compute_units, 12);
  EXPECT_EQ(d.sclk_max_mhz, 14);
  EXPECT_EQ(d.bus_id, "0000:00:01.7");  // BDFID 15
  EXPECT_EQ(d.memory_total_bytes, 67092480ull * 1024);
  EXPECT_FALSE(d.driver_version);  // "hygon module is loaded" has no version
  EXPECT_TRUE(has_fact(s, "kernel_module", "hygon"));
}

TEST(TelemetryRocminfo, Mi300xFirstAgent) {
  const auto s = read_sample("rocminfo/mi300x-8gpu-rocm6.2.3-first-gpu-agent.txt");
  ASSERT_EQ(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.name, "AMD Instinct MI300X");
  EXPECT_EQ(d.arch, "gfx942");
  EXPECT_EQ(d.uuid, "GPU-07386a321fa45d1e");
  EXPECT_EQ(d.device_id, "0x74a1");
  EXPECT_EQ(d.bus_id, "0000:1b:00.0");  // BDFID 6912
  EXPECT_EQ(d.compute_units, 304);
  EXPECT_EQ(d.sclk_max_mhz, 2100);
  EXPECT_EQ(d.memory_total_bytes, 201310208ull * 1024);
  EXPECT_EQ(d.driver_version, "6.8.5");
  EXPECT_EQ(d.sources.at(Field::arch), SourceKind::rocminfo);
}

TEST(TelemetryDcgm, LevelOnePass) {
  const auto s = read_sample("dcgm/diag-r1-v100-pass.txt");
  EXPECT_EQ(s.format, "dcgmi diag");
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].device_id, "0x1db4");
  EXPECT_EQ(s.devices[0].driver_version, "560.35.03");
  EXPECT_EQ(s.devices[0].vendor, Vendor::nvidia);
  ASSERT_EQ(s.checks.size(), 9u);
  for (const auto& c : s.checks) {
    EXPECT_EQ(c.category, "Deployment");
    EXPECT_EQ(c.status, CheckStatus::pass) << c.name;
  }
  EXPECT_TRUE(has_fact(s, "dcgm_version", "3.3.9"));
}

TEST(TelemetryDcgm, LevelTwoTruncatedBorder) {
  const auto s = read_sample("dcgm/diag-r2-v100-pass-truncated.txt");
  ASSERT_EQ(s.checks.size(), 11u);
  EXPECT_EQ(check(s, "PCIe").category, "Integration");
  EXPECT_EQ(check(s, "PCIe").result, "Pass - All");
  EXPECT_EQ(check(s, "GPU Memory").category, "Hardware");
  EXPECT_EQ(check(s, "GPU Memory").status, CheckStatus::pass);
}

TEST(TelemetryDcgm, LevelTwoVerboseUnwrapsInfo) {
  const auto s = read_sample("dcgm/diag-r2-verbose-v100-pass.txt");
  ASSERT_EQ(s.checks.size(), 11u);
  const auto& pcie = check(s, "PCIe");
  EXPECT_TRUE(contains(pcie.detail, "GPU 0 GPU to Host bandwidth: 13.13 GB/s")) << pcie.detail;
  EXPECT_TRUE(contains(pcie.detail, "GPU 0 Host to GPU bandwidth: 12.37 GB/s")) << pcie.detail;
  EXPECT_TRUE(contains(pcie.detail, "GPU 0 GPU to Host latency: 2.078 us")) << pcie.detail;  // "GP" + "U to Host"
  EXPECT_TRUE(contains(pcie.detail, "bidirectional latency: 3.957 us")) << pcie.detail;
  EXPECT_TRUE(contains(check(s, "GPU Memory").detail, "GPU 0 Allocated 16435239282 bytes (97.1%)"));
}

TEST(TelemetryDcgm, LevelThreeFailEarly) {
  const auto s = read_sample("dcgm/diag-r3-fail-early-8xh100-cuinit-fail.txt");
  ASSERT_EQ(s.devices.size(), 8u);
  for (const auto& d : s.devices) EXPECT_EQ(d.device_id, "0x2330");
  ASSERT_EQ(s.checks.size(), 13u);
  const auto& mem = check(s, "GPU Memory");
  EXPECT_EQ(mem.status, CheckStatus::fail);
  EXPECT_EQ(mem.result, "Fail - All");
  EXPECT_TRUE(contains(mem.detail, "GPU 7 Error using CUDA API cuInit")) << mem.detail;
  EXPECT_TRUE(contains(mem.detail, "Unable to initialize CUDA library: 'system not yet initialized'")) << mem.detail;
  EXPECT_EQ(check(s, "PCIe").status, CheckStatus::skip);
  EXPECT_EQ(check(s, "EUD Test").status, CheckStatus::skip);
  const auto& pm = check(s, "Persistence Mode");
  EXPECT_EQ(pm.status, CheckStatus::pass);
  EXPECT_TRUE(contains(pm.detail, "Persistence mode for GPU 0 is disabled. Enable persistence mode")) << pm.detail;
  EXPECT_TRUE(has_warning(s, "dcgmi diag: GPU Memory: Fail - All"));
}

TEST(TelemetryDcgm, LevelThreePass) {
  const auto s = read_sample("dcgm/diag-r3-v100-pass.txt");
  ASSERT_EQ(s.checks.size(), 16u);
  EXPECT_EQ(check(s, "Targeted Power").category, "Stress");
  EXPECT_EQ(check(s, "Targeted Power").status, CheckStatus::pass);
  EXPECT_EQ(check(s, "Diagnostic").status, CheckStatus::pass);
  EXPECT_EQ(check(s, "EUD Test").status, CheckStatus::skip);
  EXPECT_TRUE(s.warnings.empty());
}

TEST(TelemetryDcgm, LevelThreeVerboseMeasuredValues) {
  const auto s = read_sample("dcgm/diag-r3-verbose-v100-pass.txt");
  ASSERT_EQ(s.checks.size(), 16u);
  EXPECT_TRUE(contains(check(s, "Diagnostic").detail, "calculated at approximately 21688.18 gigaflops"));
  EXPECT_TRUE(contains(check(s, "Targeted Power").detail, "max power: 251.0 W average power usage: 247.8 W"));
  EXPECT_TRUE(contains(check(s, "Targeted Stress").detail, "relative stress level 1929"));
}

TEST(TelemetryRvs, GpuList) {
  const auto s = read_sample("rvs/rvs-g-8xmi300x.txt");
  EXPECT_EQ(s.format, "rvs");
  ASSERT_EQ(s.devices.size(), 8u);
  EXPECT_EQ(s.devices[0].bus_id, "0000:1b:00.0");
  EXPECT_EQ(s.devices[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(s.devices[0].device_id, "0x74a1");  // "Device 29857", decimal
  EXPECT_EQ(s.devices[0].vendor, Vendor::amd);
  EXPECT_EQ(s.devices[5].bus_id, "0000:bd:00.0");  // "GPU[ 7 -   705]"
  EXPECT_EQ(s.devices[7].bus_id, "0000:dd:00.0");
  EXPECT_TRUE(has_fact(s, "rvs_version", "1.1.0"));
}

TEST(TelemetryRvs, P2pJsonTail) {
  const auto s = read_sample("rvs/rvs-gm-json-tail-xgmi-mi300x-partial.txt");
  EXPECT_TRUE(s.devices.empty());
  ASSERT_EQ(s.topology.links.size(), 3u);
  EXPECT_EQ(s.topology.links[0].a, "GPU id 10985");
  EXPECT_EQ(s.topology.links[0].b, "GPU id 41632");
  EXPECT_EQ(s.topology.links[0].type, "xGMI");
  EXPECT_EQ(s.topology.links[0].bandwidth_gbps, 91.832);
  EXPECT_EQ(s.topology.links[1].bandwidth_gbps, 93.274);
  EXPECT_EQ(s.topology.links[2].b, "GPU id 60169");
  EXPECT_EQ(s.topology.links[2].bandwidth_gbps, 92.394);
  ASSERT_EQ(s.checks.size(), 3u);
  for (const auto& c : s.checks) EXPECT_EQ(c.status, CheckStatus::pass);
}

TEST(TelemetryRvs, GstResult) {
  const auto s = read_sample("rvs/rvs-gst-mi300x-partial.txt");
  ASSERT_EQ(s.checks.size(), 1u);
  const auto& c = s.checks[0];
  EXPECT_EQ(c.category, "gst");
  EXPECT_EQ(c.name, "gst-639Tflops-4K4K8K-rand-fp16");
  EXPECT_EQ(c.status, CheckStatus::pass);
  EXPECT_EQ(c.result, "met: TRUE");
  EXPECT_TRUE(contains(c.detail, "GPU 55354")) << c.detail;
  EXPECT_TRUE(contains(c.detail, "GFLOPS 738615 Target GFLOPS: 639000")) << c.detail;
}

TEST(TelemetryRvs, DocumentationHoldsNoDeviceState) {
  const auto s = read_sample("rvs/rvs-modules-features.md.txt");
  EXPECT_EQ(s.format, "rvs documentation");
  EXPECT_TRUE(s.devices.empty());
  EXPECT_TRUE(has_warning(s, "holds no device state: it is ROCm Validation Suite documentation"));
}

}  // namespace
}  // namespace dcukit::telemetry

TEST(TelemetryRvs, ALinkWithoutItsDestinationIsReadNotUndefined) {
  // The fuzzer's find (an rvs JSON tail whose object has "srcgpu" and no "dstgpu"): reading a
  // missing key of a const object was undefined behaviour; the link now says what is missing.
  const std::string text =
      "[RESULT] [  3349.185433] Module name :gm\n"
      "{\n"
      "    \"srcgpu\" : \"10985\",\n"
      "    \"intf\" : \"xGMI\",\n"
      "    \"pass\" : \"true\"\n"
      "  }\n";
  const auto s = dcukit::telemetry::read_capture_text(text, "rvs-fuzzed.txt");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->topology.links.size(), 1u);
  EXPECT_EQ(s->topology.links[0].a, "GPU id 10985");
  EXPECT_EQ(s->topology.links[0].b, "GPU id ? (no \"dstgpu\")");
}
