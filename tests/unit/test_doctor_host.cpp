// doctor's host checks on the fake DCU host: each finding's ok side as the fixture has it, and
// its bad side after one file is changed.
#include "test_doctor_fake_host.h"

using namespace doctor_test;

TEST(DoctorHost, TheFixtureIsAHealthyHost) {
  FakeHost h;
  const auto r = h.run();
  EXPECT_EQ(find(r, "host.os")->summary, "Ubuntu 22.04.5 LTS") << dump(r);
  EXPECT_EQ(find(r, "host.kernel")->summary, "5.15.0-119-generic");
  EXPECT_EQ(find(r, "host.cpu")->summary, "4 logical CPUs, Hygon C86 7390 32-core Processor");
  EXPECT_EQ(status(r, "host.memory"), "ok");
  EXPECT_EQ(find(r, "host.numa")->summary, "2 NUMA nodes");
  EXPECT_EQ(status(r, "host.memlock"), "ok");
  EXPECT_EQ(status(r, "host.iommu"), "ok");
  EXPECT_EQ(find(r, "host.iommu")->summary, "IOMMU in passthrough (identity) mode");
  EXPECT_EQ(status(r, "host.hugepages"), "ok");
  EXPECT_EQ(r.root, h.root());
}

TEST(DoctorHost, LowMemoryAndASmallLockLimitWarn) {
  FakeHost h;
  h.write("/proc/meminfo", "MemTotal: 100000000 kB\nMemAvailable: 5000000 kB\n");
  h.write("/proc/self/limits", "Max locked memory         8388608              8388608              bytes\n");
  const auto r = h.run();
  EXPECT_EQ(status(r, "host.memory"), "warn") << dump(r);
  const Finding* lock = find(r, "host.memlock");
  EXPECT_EQ(to_string(lock->status), "warn");
  EXPECT_EQ(lock->summary, "ulimit -l is 8 MiB, not unlimited");
  EXPECT_NE(lock->fix.find("ulimit -l unlimited"), std::string::npos);
  EXPECT_NE(lock->evidence.front().find("8388608"), std::string::npos);
}

TEST(DoctorHost, IommuTranslationWarnsAndOffIsFine) {
  FakeHost h;
  h.write("/sys/kernel/iommu_groups/12/type", "DMA-FQ\n");
  h.write("/proc/cmdline", "root=/dev/sda2 ro\n");
  auto r = h.run();
  const Finding* f = find(r, "host.iommu");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_NE(f->summary.find("DMA-FQ"), std::string::npos);
  EXPECT_NE(f->fix.find("iommu=pt"), std::string::npos);
  // The GPU's own group decides when it has one.
  h.write("/sys/devices/pci0000:00/0000:00:03.1/0000:07:00.0/iommu_group/type", "identity\n");
  EXPECT_EQ(status(h.run(), "host.iommu"), "ok");
  h.remove("/sys/kernel/iommu_groups");
  h.remove("/sys/devices/pci0000:00/0000:00:03.1/0000:07:00.0/iommu_group");
  r = h.run();
  EXPECT_EQ(find(r, "host.iommu")->summary, "IOMMU off (no IOMMU groups)");
}

TEST(DoctorHost, HugePagesThatEatMemoryWarn) {
  FakeHost h;
  h.write("/proc/meminfo",
          "MemTotal: 100000000 kB\nMemAvailable: 90000000 kB\nHugePages_Total: 25000\nHugepagesize: 2048 kB\n");
  const auto r = h.run();
  const Finding* f = find(r, "host.hugepages");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_NE(f->summary.find("static huge pages"), std::string::npos);
  EXPECT_NE(f->fix.find("nr_hugepages"), std::string::npos);
}

TEST(DoctorHost, AnEmptyTreeSkipsWhatItCannotRead) {
  FakeHost h("");
  h.env = {{"PATH", "/usr/bin:/bin"}};  // the fixture's ROCM_PATH=/opt/dtk would name a missing folder here
  const auto r = h.run();
  for (const char* id : {"host.os", "host.kernel", "host.cpu", "host.memory", "host.numa", "host.memlock"})
    EXPECT_EQ(status(r, id), "skip") << id << "\n" << dump(r);
  EXPECT_EQ(status(r, "driver.gpus"), "skip");
  EXPECT_EQ(status(r, "devices.inventory"), "skip");
  EXPECT_EQ(status(r, "smoke.compute"), "skip");
  EXPECT_FALSE(r.has_problems()) << dump(r);
}
