// doctor's device checks on the fake DCU host: the inventory of each card, a link that trained at
// x8, a slot that limits the card, idle link-speed drops, ECC counts and a pinned-low clock level.
#include "test_doctor_fake_host.h"

using namespace doctor_test;

namespace {
const std::string kCard0 = "/sys/devices/pci0000:00/0000:00:03.1/0000:07:00.0";
const std::string kCard1 = "/sys/devices/pci0000:00/0000:00:07.1/0000:0a:00.0";
}  // namespace

TEST(DoctorDevices, TheInventoryOfEachCard) {
  FakeHost h;
  const auto r = h.run();
  const Finding* f = find(r, "devices.inventory", "0000:07:00.0");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(f->summary, "K100_AI, gfx928, 120 CUs, 63.98 GiB, max 1500 MHz, NUMA node 0, Gen4 x16");
  EXPECT_EQ(to_string(f->status), "ok");
  // The figures are telemetry's, and the evidence names the source that gave each.
  EXPECT_NE(dump(r).find("current sclk 500 MHz (sysfs)"), std::string::npos) << dump(r);
}

TEST(DoctorDevices, ALinkThatTrainedAtX8Warns) {
  FakeHost h;
  const auto r = h.run();
  EXPECT_EQ(status(r, "devices.pcie_link", "0000:07:00.0"), "ok") << dump(r);
  const Finding* f = find(r, "devices.pcie_link", "0000:0a:00.0");
  EXPECT_EQ(to_string(f->status), "warn");
  EXPECT_EQ(f->summary, "link trained at x8 where x16 is possible");
  EXPECT_NE(f->fix.find("lspci -vvv -s 0000:0a:00.0"), std::string::npos);
  EXPECT_NE(f->why.find("halves"), std::string::npos);
  EXPECT_EQ(f->evidence.at(0), "current link: Gen4 x8 (sysfs)");
}

TEST(DoctorDevices, ASlotThatLimitsTheCard) {
  FakeHost h;
  h.write(kCard0 + "/max_link_speed", "32.0 GT/s PCIe\n");  // a Gen5 card in the fixture's Gen4 slot
  const auto r = h.run();
  const Finding* f = find(r, "devices.pcie_link", "0000:07:00.0");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_EQ(f->summary, "the slot limits the card to Gen4 x16 (the card can do Gen5 x16)");
}

TEST(DoctorDevices, AnIdleLinkMaySlowDownABusyOneMayNot) {
  FakeHost h;
  h.write(kCard0 + "/current_link_speed", "2.5 GT/s PCIe\n");
  auto r = h.run();
  EXPECT_EQ(status(r, "devices.pcie_link", "0000:07:00.0"), "ok") << dump(r);
  EXPECT_NE(find(r, "devices.pcie_link", "0000:07:00.0")->summary.find("idle links slow down"), std::string::npos);
  h.write(kCard0 + "/gpu_busy_percent", "97\n");
  r = h.run();
  EXPECT_EQ(status(r, "devices.pcie_link", "0000:07:00.0"), "warn") << dump(r);
}

TEST(DoctorDevices, EccCounts) {
  FakeHost h;
  auto r = h.run();
  EXPECT_EQ(status(r, "devices.ecc", "0000:07:00.0"), "ok") << dump(r);
  h.write(kCard0 + "/ras/umc_err_count", "ue: 0\nce: 12\n");
  h.write(kCard1 + "/ras/umc_err_count", "ue: 2\nce: 0\n");
  r = h.run();
  EXPECT_EQ(status(r, "devices.ecc", "0000:07:00.0"), "warn") << dump(r);
  EXPECT_EQ(status(r, "devices.ecc", "0000:0a:00.0"), "fail");
  h.remove(kCard0 + "/ras");
  EXPECT_EQ(status(h.run(), "devices.ecc", "0000:07:00.0"), "skip");
}

TEST(DoctorDevices, APerformanceLevelPinnedLow) {
  FakeHost h;
  h.write(kCard1 + "/power_dpm_force_performance_level", "low\n");
  const auto r = h.run();
  EXPECT_EQ(status(r, "devices.clocks", "0000:07:00.0"), "ok") << dump(r);
  const Finding* f = find(r, "devices.clocks", "0000:0a:00.0");
  EXPECT_EQ(to_string(f->status), "warn");
  EXPECT_EQ(f->fix, "echo auto | sudo tee /sys/bus/pci/devices/0000:0a:00.0/power_dpm_force_performance_level");
}
