// doctor's residue checks: processes holding the GPUs' nodes (found in /proc/*/fd), stuck ones,
// and device memory in use that no process holds (seed 004's leftovers after a crash).
#include "test_doctor_fake_host.h"

using namespace doctor_test;

TEST(DoctorResidue, AProcessHoldingACardAndTheIdleOne) {
  FakeHost h;
  const auto r = h.run();
  const Finding* f = find(r, "residue.processes");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_EQ(f->summary, "1 process holds GPU devices");
  EXPECT_EQ(f->evidence.front(), "pid 4242 (python3), state S (sleeping): /dev/dri/renderD128, /dev/kfd");
  EXPECT_EQ(f->fix, "export HIP_VISIBLE_DEVICES=1   # or stop them: kill 4242");
  EXPECT_EQ(status(r, "residue.memory"), "ok");
}

TEST(DoctorResidue, NothingHeldIsFine) {
  FakeHost h;
  h.remove("/proc/4242");
  const auto r = h.run();
  EXPECT_EQ(find(r, "residue.processes")->summary, "no process holds a GPU device") << dump(r);
}

TEST(DoctorResidue, AStuckHolderFails) {
  FakeHost h;
  h.write("/proc/4242/status", "Name:\tpython3\nState:\tD (disk sleep)\n");
  const auto r = h.run();
  const Finding* f = find(r, "residue.processes");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_NE(f->fix.find("sudo kill -9 4242"), std::string::npos);
}

TEST(DoctorResidue, MemoryInUseWithNoProcess) {
  FakeHost h;
  h.write("/sys/devices/pci0000:00/0000:00:07.1/0000:0a:00.0/mem_info_vram_used", "21474836480\n");  // 20 GiB
  auto r = h.run();
  const Finding* f = find(r, "residue.memory", "0000:0a:00.0");
  ASSERT_NE(f, nullptr) << dump(r);
  EXPECT_EQ(to_string(f->status), "warn");
  EXPECT_EQ(f->summary, "20 GiB of device memory in use with no process holding the card");
  EXPECT_NE(f->why.find("seed 004"), std::string::npos);
  EXPECT_NE(f->fix.find("hy-smi --gpureset"), std::string::npos);
  EXPECT_NE(f->fix.find("no card is idle"), std::string::npos);  // card 0 is held, card 1 has the residue
  // The same memory with its process alive is not residue.
  h.link("/proc/4242/fd/7", "/dev/dri/renderD129");
  r = h.run();
  EXPECT_EQ(status(r, "residue.memory"), "ok") << dump(r);
}
