// The kernel's messages about GPUs: lines as users pasted them in public threads (the thread is
// named beside each), in the three forms they come in (/dev/kmsg records, `dmesg`, `journalctl
// -k`), and the reader that follows /dev/kmsg (here a file in its place) from the moment it opens.
#include <gtest/gtest.h>

#include <fstream>

#include "telemetry/kernel_log.h"
#include "telemetry/sysfs_values.h"
#include "tempdir.h"

using namespace dcukit;
using namespace dcukit::telemetry;

TEST(TelemetryKernelLog, XidLinesNameTheDeviceAndTheNumber) {
  // NVIDIA/NVSentinel#155 (as dmesg prints it)
  auto e = parse_kernel_message("[ 1843.3] NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, KernelEventKind::xid);
  EXPECT_EQ(e->xid, 79);
  EXPECT_EQ(e->bus_id, "0000:44:00.0");
  EXPECT_TRUE(xid_meaning(79).hardware);
  // a /dev/kmsg record of a driver 550+ Xid with pid and name
  e = parse_kernel_message(
      "4,20571,91238123456,-;NVRM: Xid (PCI:0000:CA:00): 119, pid=3410, name=python3, Timeout after 6s of waiting "
      "for RPC response from GPU0 GSP!");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->xid, 119);
  EXPECT_EQ(e->bus_id, "0000:ca:00.0");
  EXPECT_EQ(e->text.rfind("NVRM: Xid", 0), 0u) << e->text;
  EXPECT_FALSE(xid_meaning(13).hardware) << "a graphics engine exception is most often the application's";
}

TEST(TelemetryKernelLog, AGpuThatFellOffTheBusWithoutAnXid) {
  // NVIDIA/NVSentinel#155: the message /dev/kmsg gives as one record (its newlines escaped)
  auto e = parse_kernel_message(
      "3,1201,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in this system "
      "has\\x0aNVRM: fallen off the bus and is not responding to commands.");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, KernelEventKind::off_the_bus);
  EXPECT_EQ(e->bus_id, "0000:b3:00.0");
}

TEST(TelemetryKernelLog, AmdgpuFaultsResetsAndRasErrorsButNotItsChatter) {
  // ROCm/legacy-rocm-build#2205 (dmesg)
  auto e = parse_kernel_message(
      "[  196.550067] amdgpu 0000:c3:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:12 pasid:32773, for "
      "process rocm-bandwidth- pid 8285 thread rocm-bandwidth- pid 8285)");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, KernelEventKind::fault);
  EXPECT_EQ(e->bus_id, "0000:c3:00.0");
  // pop-os/cosmic-greeter#344 (journalctl -k)
  e = parse_kernel_message(
      "nov 04 13:30:18 odys25 kernel: amdgpu 0000:0d:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:3 "
      "pasid:32770)");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->bus_id, "0000:0d:00.0");
  e = parse_kernel_message("amdgpu 0000:05:00.0: amdgpu: GPU reset begin!");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, KernelEventKind::reset);
  e = parse_kernel_message("hydcu 0000:05:00.0: 1 uncorrectable hardware errors detected in UMC block");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, KernelEventKind::ras);
  EXPECT_EQ(e->bus_id, "0000:05:00.0");
  // the same threads' lines around a fault, and ROCm/amdgpu#168's start-up lines: none is an event
  for (const char* chatter :
       {"[  196.550096] amdgpu 0000:c3:00.0: amdgpu:   in page starting at address 0x00007f0000002000 from client 10",
        "[  196.550110] amdgpu 0000:c3:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00C01A30",
        "[    5.053960] amdgpu 0000:2b:00.0: amdgpu: RAS: optional ras ta ucode is not available",
        "[    5.169022] amdgpu 0000:2b:00.0: amdgpu: ring gfx_0.0.0 uses VM inv eng 0 on hub 0",
        "[  563.230818] amdgpu 0000:44:00.0: amdgpu: ring comp_1.2.1 uses VM inv eng 9 on hub 0",
        "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE", ""})
    EXPECT_FALSE(parse_kernel_message(chatter)) << chatter;
}

TEST(TelemetryKernelLog, TheReaderGivesOnlyWhatWasLoggedAfterItOpened) {
  testutil::TempDir dir("kmsg");
  const std::string kmsg = dir.file("dev/kmsg");
  std::filesystem::create_directories(dir.file("dev"));
  std::ofstream(kmsg) << "[ 1.0] NVRM: Xid (PCI:0000:44:00): 48, an old error, before the run\n";
  auto log = KernelLog::open(util::Root(dir.path()));
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_TRUE(log->read_new().empty());
  {
    std::ofstream out(kmsg, std::ios::app);
    out << "[ 2.0] NVRM: Xid (PCI:0000:44:00): 94, Contained: SM\n[ 2.1] unrelated\n[ 2.2] NVRM: Xid (PCI:00";
  }
  auto got = log->read_new();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].xid, 94);
  std::ofstream(kmsg, std::ios::app) << "00:44:00): 95, Uncontained\n";
  got = log->read_new();
  ASSERT_EQ(got.size(), 1u) << "a line written in two pieces is read once, whole";
  EXPECT_EQ(got[0].xid, 95);
  const auto missing = KernelLog::open(util::Root(dir.file("nowhere")));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/dev/kmsg"), std::string::npos) << missing.error().message;
}

TEST(TelemetrySysfs, AmdgpuBadPagesCountRetiredPendingAndFailed) {
  DeviceState d;
  apply_sysfs_value(d, "ras/gpu_vram_bad_pages",
                    "0x000001ab : 0x00001000 : R\n0x000001ac : 0x00001000 : R\n0x000003f0 : 0x00001000 : P\n");
  EXPECT_EQ(d.retired_pages, 2);
  EXPECT_EQ(d.retirement_pending, 1);
  EXPECT_EQ(d.retirement_failed, 0);
  apply_sysfs_value(d, "ras/gpu_vram_bad_pages", "");
  EXPECT_EQ(d.retired_pages, 0) << "an empty table: no bad pages";
}
