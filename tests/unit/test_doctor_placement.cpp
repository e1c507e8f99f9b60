// doctor's placement checks: this shell's CPUs and memory policy against the GPUs' NUMA nodes,
// and *_VISIBLE_DEVICES naming devices that do not exist.
#include "test_doctor_fake_host.h"

using namespace doctor_test;

namespace {

/// The fixture with both cards on node 1, and this shell allowed on `cpus`.
FakeHost on_node1(const std::string& cpus) {
  FakeHost h;
  h.write("/sys/devices/pci0000:00/0000:00:03.1/0000:07:00.0/numa_node", "1\n");
  h.write("/proc/self/status", "Name:\tdcukit\nCpus_allowed_list:\t" + cpus + "\nMems_allowed_list:\t0-1\n");
  return h;
}

}  // namespace

TEST(DoctorPlacement, BoundBesideTheGpusIsFine) {
  FakeHost h = on_node1("32-63");
  h.mem_policy = MemPolicy{"bind", {1}};
  const auto r = h.run();
  EXPECT_EQ(find(r, "placement.affinity")->summary, "this shell runs on node 1, beside its GPUs") << dump(r);
  EXPECT_EQ(find(r, "placement.mempolicy")->summary, "memory bind to node 1, the GPUs' node");
}

TEST(DoctorPlacement, UnboundWarnsWithTheNumactlCommand) {
  FakeHost h = on_node1("0-63");
  const auto r = h.run();
  const Finding* f = find(r, "placement.affinity");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_EQ(f->fix, "numactl --cpunodebind=1 --membind=1 <your command>");
  EXPECT_NE(f->why.find("seed 004"), std::string::npos);
  EXPECT_EQ(status(r, "placement.mempolicy"), "warn");  // default policy, one GPU node of two
}

TEST(DoctorPlacement, BoundToTheWrongNodeFails) {
  FakeHost h = on_node1("0-31");
  h.mem_policy = MemPolicy{"bind", {0}};
  const auto r = h.run();
  const Finding* f = find(r, "placement.affinity");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "this shell is bound to node 0 but the GPUs are on node 1");
  EXPECT_EQ(f->fix, "numactl --cpunodebind=1 --membind=1 <your command>");
  EXPECT_EQ(status(r, "placement.mempolicy"), "fail");
}

TEST(DoctorPlacement, CardsOnBothNodesAskForOneBindingPerGroup) {
  FakeHost h;  // the fixture: a card on each node, this shell on both
  const auto r = h.run();
  EXPECT_EQ(status(r, "placement.affinity"), "ok") << dump(r);
  EXPECT_EQ(find(r, "placement.affinity")->summary, "GPUs on nodes 0,1: bind each serving process to its cards' node");
  h.mem_policy.reset();
  EXPECT_EQ(status(h.run(), "placement.mempolicy"), "skip");
}

TEST(DoctorPlacement, VisibleDevicesThatDoNotExist) {
  FakeHost h;
  h.env["HIP_VISIBLE_DEVICES"] = "0,1";
  EXPECT_EQ(status(h.run(), "placement.visible_devices"), "ok");
  h.env["HIP_VISIBLE_DEVICES"] = "0,8";
  auto r = h.run();
  const Finding* f = find(r, "placement.visible_devices");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "HIP_VISIBLE_DEVICES names device 8 but there are 2 (0-1)");
  h.env["HIP_VISIBLE_DEVICES"] = "";
  EXPECT_NE(find(h.run(), "placement.visible_devices")->summary.find("set but empty"), std::string::npos);
  // ROCr filters first: HIP_VISIBLE_DEVICES then indexes the one card ROCr left.
  h.env["ROCR_VISIBLE_DEVICES"] = "1";
  h.env["HIP_VISIBLE_DEVICES"] = "1";
  r = h.run();
  EXPECT_EQ(find(r, "placement.visible_devices")->summary, "HIP_VISIBLE_DEVICES names device 1 but there is 1 (0-0)")
      << dump(r);
  h.env.erase("ROCR_VISIBLE_DEVICES");
  h.env.erase("HIP_VISIBLE_DEVICES");
  h.env["CUDA_VISIBLE_DEVICES"] = "1,1";  // HIP honours it too
  EXPECT_EQ(status(h.run(), "placement.visible_devices"), "fail");
}

// Issue 23: NCCL/RCCL's transport variables and one job's cards across NUMA nodes.
TEST(DoctorPlacement, NcclSocketIfnameMustNameAnInterfaceOfThisHost) {
  FakeHost h;
  for (const char* n : {"lo", "eth0", "ib0"}) h.write(std::string("/sys/class/net/") + n + "/operstate", "up\n");
  EXPECT_EQ(status(h.run(), "placement.nccl_env"), "ok");
  h.env["NCCL_SOCKET_IFNAME"] = "bond0";
  auto r = h.run();
  const Finding* f = find(r, "placement.nccl_env");
  EXPECT_EQ(to_string(f->status), "fail") << dump(r);
  EXPECT_EQ(f->summary, "NCCL_SOCKET_IFNAME=bond0 matches no interface of this host (it has eth0, ib0, lo)");
  EXPECT_NE(f->fix.find("NCCL_SOCKET_IFNAME"), std::string::npos);
  for (const char* ok : {"eth", "=eth0", "^docker,lo", "bond0,ib"}) {
    h.env["NCCL_SOCKET_IFNAME"] = ok;
    EXPECT_EQ(status(h.run(), "placement.nccl_env"), "ok") << ok;
  }
  h.env["NCCL_SOCKET_IFNAME"] = "=eth";  // exact names only: eth0 is not eth
  EXPECT_EQ(status(h.run(), "placement.nccl_env"), "fail");
}

TEST(DoctorPlacement, TransportsSwitchedOffAreWarnedWithTheirCost) {
  FakeHost h;
  h.env["NCCL_P2P_DISABLE"] = "1";
  h.env["NCCL_IB_DISABLE"] = "0";
  auto r = h.run();
  const Finding* f = find(r, "placement.nccl_env");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_NE(f->summary.find("NCCL_P2P_DISABLE=1"), std::string::npos) << f->summary;
  EXPECT_EQ(f->summary.find("NCCL_IB_DISABLE"), std::string::npos) << "0 switches nothing off: " << f->summary;
}

TEST(DoctorPlacement, OneJobsCardsOnBothNumaNodesAreWarned) {
  FakeHost h;  // the fixture: a card on each node
  h.env["HIP_VISIBLE_DEVICES"] = "0,1";
  auto r = h.run();
  const Finding* f = find(r, "placement.job_numa");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_EQ(f->summary, "HIP_VISIBLE_DEVICES puts one job's cards on NUMA nodes 0,1");
  EXPECT_NE(f->why.find("seed 004"), std::string::npos);
  h.env["HIP_VISIBLE_DEVICES"] = "1";
  r = h.run();
  EXPECT_EQ(status(r, "placement.job_numa"), "ok") << dump(r);
  EXPECT_EQ(find(r, "placement.job_numa")->summary, "the job's cards are all on node 1");
}

namespace {

// A KFD topology in the fake host: one CPU node, GPU nodes at buses 0x0c and 0x0d joined by
// xGMI, with the io_link flags `flags` (bit 4: no peer-to-peer DMA).
void kfd_pair(const FakeHost& h, int flags) {
  const std::string n = "/sys/class/kfd/kfd/topology/nodes/";
  h.write(n + "0/properties", "cpu_cores_count 32\nsimd_count 0\n");
  for (int g : {1, 2}) {
    h.write(n + std::to_string(g) + "/properties",
            "simd_count 256\nlocation_id " + std::to_string((g == 1 ? 0x0c : 0x0d) << 8) + "\ndomain 0\n");
    h.write(n + std::to_string(g) + "/io_links/0/properties", "type 2\nnode_from 0\nnode_to 0\nweight 20\nflags 3\n");
    h.write(n + std::to_string(g) + "/io_links/1/properties",
            "type 11\nnode_from " + std::to_string(g) + "\nnode_to " + std::to_string(3 - g) + "\nweight 15\nflags " +
                std::to_string(flags) + "\n");
  }
}

}  // namespace

TEST(DoctorPlacement, PeerAccessOffOverADirectLinkIsWarned) {
  FakeHost h;
  EXPECT_EQ(status(h.run(), "placement.peer_access"), "skip") << "no KFD topology: nothing to judge";
  kfd_pair(h, 1);
  auto r = h.run();
  EXPECT_EQ(status(r, "placement.peer_access"), "ok") << dump(r);
  EXPECT_EQ(find(r, "placement.peer_access")->summary, "peer access is on over all 1 direct GPU link");
  kfd_pair(h, 1 | (1 << 4));
  r = h.run();
  const Finding* f = find(r, "placement.peer_access");
  EXPECT_EQ(to_string(f->status), "warn") << dump(r);
  EXPECT_NE(f->summary.find("0000:0c:00.0 - 0000:0d:00.0 (XGMI)"), std::string::npos) << f->summary;
  EXPECT_NE(f->why.find("host memory"), std::string::npos);
  EXPECT_NE(f->fix.find("dcukit bench --only p2p"), std::string::npos);
}
