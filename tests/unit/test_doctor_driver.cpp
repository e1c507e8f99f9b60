// doctor's driver checks: the GPUs and their drivers, Hygon's hycu/hydcu, NVIDIA's banner, and
// the device nodes with this user's access.
#include "doctor/driver_info.h"
#include "doctor/gpus.h"
#include "test_doctor_fake_host.h"
#include "util/root.h"

using namespace doctor_test;

TEST(DoctorDriver, ADcuHostWithHycu) {
  FakeHost h;
  const auto r = h.run();
  const Finding* gpus = find(r, "driver.gpus");
  EXPECT_EQ(to_string(gpus->status), "ok") << dump(r);
  EXPECT_EQ(gpus->summary, "2 GPUs, each with its driver");  // the BMC's VGA is not one
  const Finding* hygon = find(r, "driver.hygon");
  EXPECT_EQ(to_string(hygon->status), "ok");
  EXPECT_EQ(hygon->summary, "hycu 6.3.28-V1.3.0b loaded");
  EXPECT_EQ(status(r, "driver.nvidia"), "skip");
  EXPECT_EQ(status(r, "driver.amdgpu"), "skip");
  EXPECT_EQ(status(r, "driver.nodes"), "ok");
  EXPECT_EQ(find(r, "driver.nodes")->evidence.size(), 3u);  // /dev/kfd and both render nodes
}

TEST(DoctorDriver, TheScanReadsEachCard) {
  FakeHost h;
  const auto scan = scan_gpus(dcukit::util::Root(h.root()), false, std::chrono::milliseconds(1000));
  ASSERT_EQ(scan.gpus.size(), 2u);
  const Gpu& g = scan.gpus[1];
  EXPECT_EQ(g.bus_id, "0000:0a:00.0");
  EXPECT_EQ(g.vendor, dcukit::core::Vendor::hygon);
  EXPECT_EQ(g.pci_id, "1d94:6210");
  EXPECT_EQ(g.driver, "hycu");
  // telemetry's figures, read from sysfs, and doctor's own from the KFD topology.
  EXPECT_EQ(g.numa_node(), 1);
  EXPECT_EQ(g.state.sources.at(dcukit::telemetry::Field::numa_node), dcukit::telemetry::SourceKind::sysfs);
  EXPECT_EQ(g.isa(), "gfx928");
  EXPECT_EQ(g.state.compute_units, 120);
  EXPECT_EQ(g.state.memory_total_bytes, 68702699520u);
  EXPECT_EQ(g.state.sclk_mhz, 500);
  EXPECT_EQ(g.state.sclk_max_mhz, 1500);
  EXPECT_EQ(g.link().width, 8);
  EXPECT_EQ(g.link().gen, 4);
  EXPECT_EQ(g.link_max().width, 16);
  ASSERT_TRUE(g.slot_max.has_value());
  EXPECT_EQ(g.slot_max->width, 16);
  EXPECT_EQ(g.nodes, (std::vector<std::string>{"card2", "renderD129"}));
  EXPECT_EQ(isa_from_target_version(90006), "gfx906");
  EXPECT_EQ(isa_from_target_version(90010), "gfx90a");
  EXPECT_EQ(isa_from_target_version(90402), "gfx942");
  EXPECT_EQ(isa_from_target_version(90208), "gfx928");
  EXPECT_EQ(isa_from_target_version(90306), "gfx936");
  EXPECT_EQ(isa_from_target_version(110001), "gfx1101");
}

TEST(DoctorDriver, NoDcuDriverLoadedFails) {
  FakeHost h;
  h.write("/proc/modules", "");
  h.remove("/sys/module/hycu");
  const auto r = h.run();
  const Finding* f = find(r, "driver.hygon");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_NE(f->fix.find("modprobe hycu"), std::string::npos);
}

TEST(DoctorDriver, OldHydcuIsFineAndBothGenerationsWarn) {
  FakeHost h;
  h.write("/proc/modules", "hydcu 1435342 0 - Live 0x0\nhydcu_sched 34432 1 hydcu, Live 0x0\n");
  h.remove("/sys/module/hycu");
  h.write("/sys/module/hydcu/version", "6.2.26-V1.0.0\n");
  auto r = h.run();
  EXPECT_EQ(find(r, "driver.hygon")->summary, "hydcu 6.2.26-V1.0.0 loaded") << dump(r);
  EXPECT_EQ(status(r, "driver.hygon"), "ok");
  h.write("/proc/modules", "hycu 3371008 2 - Live 0x0\nhydcu 1435342 0 - Live 0x0\n");
  r = h.run();
  EXPECT_EQ(status(r, "driver.hygon"), "warn") << dump(r);
  // A module name that does not belong to its version: hydcu reporting 6.3.
  h.write("/proc/modules", "hydcu 1435342 0 - Live 0x0\n");
  h.write("/sys/module/hydcu/version", "6.3.28-V1.3.0b\n");
  EXPECT_EQ(status(h.run(), "driver.hygon"), "warn");
}

TEST(DoctorDriver, ACardWithoutADriverFails) {
  FakeHost h;
  h.remove("/sys/devices/pci0000:00/0000:00:07.1/0000:0a:00.0/driver");
  const auto r = h.run();
  const Finding* f = find(r, "driver.gpus");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "1 of 2 GPUs have no kernel driver bound");
}

TEST(DoctorDriver, NodesAbsentOrClosedToThisUser) {
  FakeHost h;
  h.remove("/dev/kfd");
  auto r = h.run();
  const Finding* absent = find(r, "driver.nodes");
  EXPECT_EQ(to_string(absent->status), "fail") << dump(r);
  EXPECT_EQ(absent->summary, "absent: /dev/kfd");
  EXPECT_NE(absent->fix.find("--device=/dev/kfd"), std::string::npos);

  FakeHost closed;
  closed.chmod("/dev/kfd", 0660);
  closed.chmod("/dev/dri/renderD128", 0660);
  r = closed.run();
  const Finding* denied = find(r, "driver.nodes");
  EXPECT_EQ(to_string(denied->status), "fail") << dump(r);
  EXPECT_NE(denied->summary.find("alice (uid 1000) may not open /dev/kfd, /dev/dri/renderD128"), std::string::npos);
  EXPECT_NE(denied->fix.find("usermod -aG video,render alice"), std::string::npos);
  EXPECT_EQ(status(r, "driver.groups"), "warn");
  // root opens everything.
  closed.identity.uid = 0;
  r = closed.run();
  EXPECT_EQ(status(r, "driver.nodes"), "ok");
  EXPECT_EQ(status(r, "driver.groups"), "ok");
}

TEST(DoctorDriver, NvidiaBannerAndAMissingModule) {
  EXPECT_EQ(nvrm_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"),
            "550.54.15");
  EXPECT_EQ(nvrm_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build"),
            "570.124.06");
  FakeHost h("");
  const std::string dev = "/sys/devices/pci0000:00/0000:00:01.0/0000:18:00.0";
  h.write(dev + "/class", "0x030200\n");
  h.write(dev + "/vendor", "0x10de\n");
  h.write(dev + "/device", "0x2335\n");
  h.link("/sys/bus/pci/devices/0000:18:00.0", "../../../devices/pci0000:00/0000:00:01.0/0000:18:00.0");
  auto r = h.run();
  EXPECT_EQ(status(r, "driver.nvidia"), "fail") << dump(r);
  EXPECT_EQ(status(r, "driver.gpus"), "fail");  // no driver bound either
  h.link(dev + "/driver", "../../../../bus/pci/drivers/nvidia");
  h.write(
      "/proc/driver/nvidia/version",
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version: gcc 12\n");
  h.write("/proc/driver/nvidia/gpus/0000:18:00.0/information", "Model: \t\t NVIDIA H200\nDevice Minor: \t 0\n");
  h.write("/dev/nvidiactl", "");
  h.write("/dev/nvidia-uvm", "");
  h.write("/dev/nvidia0", "");
  for (const char* n : {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia0"}) h.chmod(n, 0666);
  r = h.run();
  EXPECT_EQ(find(r, "driver.nvidia")->summary, "nvidia 550.54.15 loaded") << dump(r);
  EXPECT_EQ(status(r, "driver.nodes"), "ok");
  EXPECT_EQ(find(r, "devices.inventory")->summary.substr(0, 11), "NVIDIA H200");
}
