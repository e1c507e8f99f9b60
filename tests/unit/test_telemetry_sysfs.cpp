// The sysfs source on a fake DCU host (tests/fixtures/telemetry/sysfs-dcu-host): GPUs among the
// PCI devices, the BMC's VGA left out, amdgpu/hycu figures, and processes from /proc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "telemetry/sysfs_source.h"
#include "telemetry/sysfs_values.h"
#include "tempdir.h"
#include "util/root.h"
#include "test_telemetry_helpers.h"

namespace dcukit::telemetry {
namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t kMiB = 1024 * 1024;

const std::string kHost = testutil::telemetry_fixture("sysfs-dcu-host");

TEST(TelemetrySysfs, FindsTheGpusAndNotTheBmcVga) {
  const Snapshot s = read_sysfs(util::Root(kHost));
  ASSERT_EQ(s.devices.size(), 3u);
  EXPECT_EQ(s.devices[0].bus_id, "0000:05:00.0");
  EXPECT_EQ(s.devices[1].bus_id, "0000:0a:00.0");
  EXPECT_EQ(s.devices[2].bus_id, "0000:41:00.0");
  EXPECT_EQ(s.devices[0].index, 0);
  EXPECT_EQ(s.devices[2].index, 2);
}

TEST(TelemetrySysfs, EverySysFileReadGoesThroughTheRootAndIsRecorded) {
  // A bundle's Root records what was read: telemetry's /sys reads among them; of /proc, only the
  // descriptors of a GPU's nodes, never the listings of every process and descriptor.
  util::Root root(kHost);
  auto log = std::make_shared<util::AccessLog>();
  root.record_to(log);
  const Snapshot s = read_sysfs(root);
  ASSERT_EQ(s.devices.size(), 3u) << "the same devices as through a plain folder";
  std::set<std::string> paths;
  for (const auto& e : log->entries()) paths.insert(e.path);
  EXPECT_TRUE(paths.count("/sys/bus/pci/devices")) << "the PCI listing";
  bool class_file = false;
  for (const auto& e : log->entries()) {
    const auto& p = e.path;
    class_file = class_file || (p.find("/sys/") == 0 && p.size() > 6 && p.substr(p.size() - 6) == "/class");
    if (p.find("/proc") != 0) continue;
    EXPECT_NE(e.kind, util::AccessLog::Kind::directory) << "/proc's listings are not recorded: " << p;
    if (e.kind == util::AccessLog::Kind::link) {
      EXPECT_EQ(e.target.rfind("/dev/dri/", 0), 0u) << p << " -> " << e.target;
    }
  }
  EXPECT_TRUE(class_file) << "each device's class file";
  // The live source records through its Root the same way.
  auto live_log = std::make_shared<util::AccessLog>();
  util::Root live(kHost);
  live.record_to(live_log);
  SysfsSource source(live);
  EXPECT_EQ(source.sample(Snapshot{}).snapshot.devices.size(), 3u);
  EXPECT_FALSE(live_log->entries().empty());
}

TEST(TelemetrySysfs, ReadsTheDcuFigures) {
  const Snapshot s = read_sysfs(util::Root(kHost));
  ASSERT_GE(s.devices.size(), 1u);
  const auto& d = s.devices[0];
  EXPECT_EQ(d.vendor, Vendor::hygon);
  EXPECT_EQ(d.device_id, "0x6210");
  EXPECT_EQ(d.numa_node, 0);
  EXPECT_EQ(d.pcie_gen, 4);  // 16.0 GT/s
  EXPECT_EQ(d.pcie_width, 8);
  EXPECT_EQ(d.pcie_gen_max, 4);
  EXPECT_EQ(d.pcie_width_max, 16);
  EXPECT_EQ(d.busy_percent, 37.0);
  EXPECT_EQ(d.memory_total_bytes, 65520 * kMiB);
  EXPECT_EQ(d.memory_used_bytes, 2 * kMiB);
  EXPECT_EQ(d.sclk_mhz, 800);
  EXPECT_EQ(d.sclk_max_mhz, 1500);
  EXPECT_EQ(d.mclk_mhz, 1200);
  EXPECT_EQ(d.temperature_c, 48.0);  // the sensor labelled edge, not junction's 51
  EXPECT_EQ(d.power_w, 104.0);
  EXPECT_EQ(d.power_cap_w, 400.0);
  EXPECT_EQ(d.serial, "TRCW340025090301");
  EXPECT_EQ(d.uuid, "7137d9debef24861");
  EXPECT_EQ(d.driver_version, "6.3.28-V1.3.0b");  // /sys/module/hycu/version
  for (const auto& [field, source] : d.sources) EXPECT_EQ(source, SourceKind::sysfs) << to_string(field);
  EXPECT_FALSE(d.processes);  // no /proc in the tree: unknown, not none
}

TEST(TelemetrySysfs, UnlabelledHwmonAndPowerInput) {
  const Snapshot s = read_sysfs(util::Root(kHost));
  ASSERT_GE(s.devices.size(), 2u);
  const auto& d = s.devices[1];
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.temperature_c, 55.0);  // temp1 is amdgpu's edge sensor
  EXPECT_EQ(d.power_w, 98.0);        // power1_input where power1_average is absent
  EXPECT_EQ(d.sclk_mhz, 300);
  EXPECT_EQ(d.memory_used_bytes, 1024 * kMiB);
}

TEST(TelemetrySysfs, NvidiaGpuGivesLinkAndNumaOnly) {
  const Snapshot s = read_sysfs(util::Root(kHost));
  ASSERT_EQ(s.devices.size(), 3u);
  const auto& d = s.devices[2];
  EXPECT_EQ(d.vendor, Vendor::nvidia);
  EXPECT_EQ(d.device_id, "0x2335");
  EXPECT_EQ(d.numa_node, 1);
  EXPECT_EQ(d.pcie_gen, 5);
  EXPECT_EQ(d.pcie_width, 16);
  EXPECT_EQ(d.driver_version, "590.48.01");
  EXPECT_FALSE(d.temperature_c);
  EXPECT_FALSE(d.busy_percent);
}

TEST(TelemetrySysfs, ProcessesHoldingRenderNodes) {
  testutil::TempDir tmp("telemetry_sysfs_proc");
  fs::copy(kHost, tmp.path(), fs::copy_options::recursive);
  // pid 1234 holds renderD128 twice through the same DRM client (a dup'ed fd): counted once.
  tmp.write("proc/1234/comm", "vllm\n");
  tmp.write("proc/1234/fdinfo/5", "pos:\t0\ndrm-driver:\thycu\ndrm-client-id:\t7\ndrm-memory-vram:\t2048 KiB\n");
  tmp.write("proc/1234/fdinfo/6", "pos:\t0\ndrm-driver:\thycu\ndrm-client-id:\t7\ndrm-memory-vram:\t2048 KiB\n");
  fs::create_directories(tmp.file("proc/1234/fd"));
  fs::create_symlink("/dev/dri/renderD128", tmp.file("proc/1234/fd/5"));
  fs::create_symlink("/dev/dri/renderD128", tmp.file("proc/1234/fd/6"));
  // pid 1400 holds renderD129 with a driver that writes no fdinfo memory; pid 1500 holds /dev/null.
  tmp.write("proc/1400/comm", "python3\n");
  fs::create_directories(tmp.file("proc/1400/fd"));
  fs::create_symlink("/dev/dri/renderD129", tmp.file("proc/1400/fd/4"));
  tmp.write("proc/1500/comm", "bash\n");
  fs::create_directories(tmp.file("proc/1500/fd"));
  fs::create_symlink("/dev/null", tmp.file("proc/1500/fd/0"));

  const Snapshot s = read_sysfs(util::Root(tmp.path()));
  ASSERT_EQ(s.devices.size(), 3u);
  ASSERT_TRUE(s.devices[0].processes);
  ASSERT_EQ(s.devices[0].processes->size(), 1u);
  const auto& p = (*s.devices[0].processes)[0];
  EXPECT_EQ(p.pid, 1234);
  EXPECT_EQ(p.name, "vllm");
  EXPECT_EQ(p.memory_bytes, 2 * kMiB);
  ASSERT_TRUE(s.devices[1].processes);
  ASSERT_EQ(s.devices[1].processes->size(), 1u);
  EXPECT_EQ((*s.devices[1].processes)[0].pid, 1400);
  EXPECT_FALSE((*s.devices[1].processes)[0].memory_bytes);
  EXPECT_FALSE(s.devices[2].processes);  // NVIDIA's processes come from NVML
  EXPECT_EQ(s.devices[0].sources.at(Field::processes), SourceKind::sysfs);
}

TEST(TelemetrySysfs, SourceWithoutSysfsIsUnavailable) {
  testutil::TempDir tmp("telemetry_sysfs_none");
  SysfsSource source{util::Root(tmp.path())};
  const auto r = source.sample(Snapshot{});
  EXPECT_EQ(r.state, SourceState::unavailable);
  EXPECT_NE(r.detail.find("/sys/bus/pci/devices"), std::string::npos);
}

TEST(TelemetrySysfs, DpmLevelsAndValues) {
  std::optional<std::int64_t> cur, max;
  read_dpm_levels("0: 500Mhz\n1: 800Mhz *\n2: 1700Mhz\n", cur, max);
  EXPECT_EQ(cur, 800);
  EXPECT_EQ(max, 1700);
  DeviceState d;
  EXPECT_TRUE(apply_sysfs_value(d, "numa_node", "-1\n"));
  EXPECT_FALSE(d.numa_node);  // -1: no NUMA placement
  EXPECT_TRUE(apply_sysfs_value(d, "current_link_speed", "8.0 GT/s PCIe"));
  EXPECT_EQ(d.pcie_gen, 3);
  EXPECT_TRUE(apply_sysfs_value(d, "current_link_speed", "Unknown"));
  EXPECT_FALSE(d.pcie_gen);
  EXPECT_FALSE(apply_sysfs_value(d, "mem_busy_percent", "39"));
  EXPECT_EQ(vendor_from_pci_id("0x1d94"), Vendor::hygon);
  EXPECT_FALSE(vendor_from_pci_id("0x1a03"));  // ASPEED
}

/// A gpu_metrics file as amdgpu writes it: the header, then zeros, with `indep` at `at`.
std::string gpu_metrics(int format, int content, std::size_t size, std::size_t at, std::uint64_t indep) {
  std::string b(size, '\0');
  b[0] = static_cast<char>(size & 0xff);
  b[1] = static_cast<char>(size >> 8);
  b[2] = static_cast<char>(format);
  b[3] = static_cast<char>(content);
  for (std::size_t i = 0; at >= 4 && i < 8 && at + i < size; ++i) b[at + i] = static_cast<char>((indep >> (8 * i)) & 0xff);
  return b;
}

TEST(TelemetrySysfs, AmdgpusThrottleStatusFromGpuMetrics) {
  // gpu_metrics_v1_3: indep_throttle_status at byte 112 (kgd_pp_interface.h); bit 0 PPT0 (power),
  // bit 36 hotspot temperature.
  DeviceState d;
  EXPECT_EQ(apply_gpu_metrics(d, gpu_metrics(1, 3, 120, 112, (1ull << 0) | (1ull << 36))), "");
  EXPECT_EQ(d.throttle_reasons, "power cap, thermal");
  EXPECT_EQ(apply_gpu_metrics(d, gpu_metrics(1, 3, 120, 112, 0)), "");
  EXPECT_EQ(d.throttle_reasons, "") << "read, and nothing throttles";
  DeviceState other;
  EXPECT_NE(apply_gpu_metrics(other, gpu_metrics(1, 4, 256, 0, 0)).find("1.4 carries no"), std::string::npos);
  EXPECT_NE(apply_gpu_metrics(other, gpu_metrics(1, 3, 64, 0, 0)).find("too short"), std::string::npos);
  EXPECT_NE(apply_gpu_metrics(other, "ab").find("header"), std::string::npos);
  EXPECT_FALSE(other.throttle_reasons) << "unknown, not \"none\", where it could not be read";

  // Through the sysfs source: the fake host's first card with a gpu_metrics file.
  testutil::TempDir tmp("telemetry_gpu_metrics");
  fs::copy(kHost, tmp.path(), fs::copy_options::recursive);
  const std::string card = tmp.path() + "/sys/bus/pci/devices/0000:05:00.0/gpu_metrics";
  std::ofstream(card, std::ios::binary) << gpu_metrics(1, 3, 120, 112, 1ull << 35);
  const Snapshot s = read_sysfs(util::Root(tmp.path()));
  ASSERT_EQ(s.devices.size(), 3u);
  EXPECT_EQ(s.devices[0].throttle_reasons, "thermal");
  EXPECT_FALSE(s.devices[1].throttle_reasons);
}

}  // namespace
}  // namespace dcukit::telemetry
