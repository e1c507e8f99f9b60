// The live link readers: KFD's topology in a fake sysfs (the node and io_link properties files
// as the kernel writes them) and NVML through a table of fake functions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>

#include "telemetry/links.h"
#include "tempdir.h"

using namespace dcukit;
using namespace dcukit::telemetry;
using testutil::TempDir;

namespace {

constexpr const char* kKfd = "sys/class/kfd/kfd/topology/nodes/";

// A CPU node (simd_count 0) or a GPU node at PCI bus `bus`, as /properties prints them.
void node(const TempDir& t, int id, int bus) {
  std::string p = bus < 0 ? "cpu_cores_count 64\nsimd_count 0\nlocation_id 0\ndomain 0\n"
                          : fmt::format("cpu_cores_count 0\nsimd_count 304\nlocation_id {}\ndomain 0\n"
                                        "gfx_target_version 90402\ndrm_render_minor {}\n",
                                        bus << 8, 128 + id);
  t.write(fmt::format("{}{}/properties", kKfd, id), p);
}

void link(const TempDir& t, int from, const char* kind, int k, int to, int type, int weight, int flags,
          int max_mbps = 0) {
  t.write(fmt::format("{}{}/{}/{}/properties", kKfd, from, kind, k),
          fmt::format("type {}\nversion_major 0\nversion_minor 0\nnode_from {}\nnode_to {}\nweight {}\n"
                      "min_latency 0\nmax_latency 0\nmin_bandwidth 0\nmax_bandwidth {}\nflags {}\n",
                      type, from, to, weight, max_mbps, flags));
}

const TopoLink& at(const LinkReading& r, const char* a, const char* b) {
  static const TopoLink none;
  const TopoLink* l = find_link(r.topology, a, b);
  EXPECT_NE(l, nullptr) << a << " - " << b;
  return l ? *l : none;
}

}  // namespace

// Two sockets, two GPUs on each; the pairs on one socket joined by xGMI, one of them marked
// no-peer-to-peer-DMA; across sockets no GPU link, so the path goes GPU - CPU - CPU - GPU.
TEST(TelemetryLinks, KfdXgmiPairsAndPathsThroughTheSockets) {
  TempDir t("kfd");
  node(t, 0, -1);
  node(t, 1, -1);
  node(t, 2, 0xc3);
  node(t, 3, 0xc4);
  node(t, 4, 0x43);
  node(t, 5, 0x44);
  link(t, 0, "io_links", 0, 1, 2, 32, 3);  // the socket link (KFD_CRAT_INTER_SOCKET_WEIGHT)
  link(t, 1, "io_links", 0, 0, 2, 32, 3);
  for (int g : {2, 3}) link(t, g, "io_links", 0, 0, 2, 20, 3);
  for (int g : {4, 5}) link(t, g, "io_links", 0, 1, 2, 20, 3);
  link(t, 2, "io_links", 1, 3, 11, 15, 1, 50000);
  link(t, 3, "io_links", 1, 2, 11, 15, 1, 50000);
  link(t, 4, "io_links", 1, 5, 11, 15, 1 | (1 << 4), 50000);
  link(t, 5, "io_links", 1, 4, 11, 15, 1 | (1 << 4), 50000);
  const auto r = kfd_links(util::Root(t.path()));
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  ASSERT_EQ(r.topology.links.size(), 6u);
  ASSERT_EQ(r.sources.size(), 1u);
  EXPECT_EQ(r.sources[0], "kfd: 4 GPUs");

  const auto& x = at(r, "0000:c3:00.0", "0000:c4:00.0");
  EXPECT_EQ(x.type, "XGMI");
  EXPECT_EQ(x.hops, 1);
  EXPECT_EQ(x.weight, 15);
  EXPECT_EQ(x.bandwidth_gbps, 50.0);
  EXPECT_EQ(attribute(x, "peer access"), "");
  EXPECT_TRUE(direct_link(x));

  const auto& off = at(r, "0000:44:00.0", "0000:43:00.0");
  EXPECT_EQ(off.type, "XGMI");
  EXPECT_EQ(attribute(off, "peer access").rfind("off: ", 0), 0u) << attribute(off, "peer access");
  EXPECT_NE(describe(off).find("peer access off"), std::string::npos) << describe(off);

  const auto& far = at(r, "0000:c3:00.0", "0000:43:00.0");
  EXPECT_EQ(far.type, "PCIE");
  EXPECT_EQ(far.hops, 3);
  EXPECT_EQ(far.weight, 20 + 32 + 20);
  EXPECT_EQ(attribute(far, "via"), "CPU nodes 0 and 1");
  EXPECT_FALSE(direct_link(far));
  EXPECT_EQ(describe(far), "PCIE, 3 hops, weight 72, via CPU nodes 0 and 1 (kfd)");
}

// Two GPUs under one socket without xGMI: KFD's own p2p_links (kernels from 6.x) or, on older
// kernels, the sum of the two PCIe links; either way 2 hops and weight 40, as amd-smi topology
// prints for such a pair (samples/amd-smi/topology-json-2gpu-pcie-changelog.txt).
TEST(TelemetryLinks, KfdPciePairOnOneSocketIsTwoHopsWeightForty) {
  for (bool p2p_links : {false, true}) {
    TempDir t("kfd_pcie");
    node(t, 0, -1);
    node(t, 1, 0x0c);
    node(t, 2, 0x0d);
    link(t, 1, "io_links", 0, 0, 2, 20, 3);
    link(t, 2, "io_links", 0, 0, 2, 20, 3);
    if (p2p_links) {
      link(t, 1, "p2p_links", 0, 2, 2, 40, 3);
      link(t, 2, "p2p_links", 0, 1, 2, 40, 3);
    }
    const auto r = kfd_links(util::Root(t.path()));
    ASSERT_EQ(r.topology.links.size(), 1u) << p2p_links;
    const auto& l = r.topology.links[0];
    EXPECT_EQ(l.type, "PCIE");
    EXPECT_EQ(l.hops, 2);
    EXPECT_EQ(l.weight, 40);
    EXPECT_EQ(attribute(l, "via"), "CPU node 0");
  }
}

// No KFD (an NVIDIA host, a container): nothing read, nothing claimed. A GPU node without its
// CPU link is named, not joined to its peers by a guess.
TEST(TelemetryLinks, KfdAbsentOrIncompleteSaysSo) {
  TempDir empty("kfd_none");
  const auto none = kfd_links(util::Root(empty.path()));
  EXPECT_TRUE(none.topology.links.empty());
  EXPECT_TRUE(none.sources.empty());
  EXPECT_TRUE(none.warnings.empty());

  TempDir t("kfd_broken");
  node(t, 0, -1);
  node(t, 1, 0x0c);
  node(t, 2, 0x0d);
  link(t, 1, "io_links", 0, 0, 2, 20, 3);  // node 2 has no io_links
  t.write(std::string(kKfd) + "3/properties", "");
  const auto r = kfd_links(util::Root(t.path()));
  EXPECT_TRUE(r.topology.links.empty());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("no CPU node for 0000:0d:00.0"), std::string::npos) << r.warnings[0];
}

namespace links_fake_nvml {

// Four GPUs: 0 and 1 joined by 4 NVLink lanes; 2 and 3 each with 18 lanes to NVSwitches; 0/1
// and 2/3 on different sockets (SYS) where peer reads are not possible (topology not supported).
nvml::Device handle(unsigned i) { return reinterpret_cast<nvml::Device>(static_cast<std::uintptr_t>(i + 1)); }
unsigned index_of(nvml::Device d) { return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(d) - 1); }
const char* kBus[] = {"00000000:18:00.0", "00000000:2A:00.0", "00000000:9A:00.0", "00000000:AB:00.0"};
nvml::Return count(unsigned* n) { return *n = 4, nvml::kSuccess; }
nvml::Return by_index(unsigned i, nvml::Device* d) { return *d = handle(i), nvml::kSuccess; }
nvml::Return pci(nvml::Device d, nvml::PciInfo* p) {
  std::snprintf(p->busId, sizeof p->busId, "%s", kBus[index_of(d)]);
  return nvml::kSuccess;
}
nvml::Return state(nvml::Device d, unsigned link, int* on) {
  const unsigned i = index_of(d);
  *on = i < 2 ? link < 4 : link < 18;
  return nvml::kSuccess;
}
nvml::Return remote_type(nvml::Device d, unsigned, int* type) {
  *type = index_of(d) < 2 ? 0 : nvml::kNvLinkRemoteSwitch;
  return nvml::kSuccess;
}
nvml::Return remote_pci(nvml::Device d, unsigned, nvml::PciInfo* p) { return pci(handle(1 - index_of(d)), p); }
bool same_half(nvml::Device a, nvml::Device b) { return (index_of(a) < 2) == (index_of(b) < 2); }
nvml::Return ancestor(nvml::Device a, nvml::Device b, int* level) {
  return *level = same_half(a, b) ? 20 : 50, nvml::kSuccess;
}
nvml::Return p2p(nvml::Device a, nvml::Device b, int, int* status) {
  return *status = same_half(a, b) ? 0 : 3, nvml::kSuccess;
}

}  // namespace links_fake_nvml

TEST(TelemetryLinks, NvmlNvLinkPairsSwitchesPathsAndPeerStatus) {
  namespace f = links_fake_nvml;
  nvml::Api a;
  a.device_count = f::count;
  a.handle_by_index = f::by_index;
  a.pci_info = f::pci;
  a.nvlink_state = f::state;
  a.nvlink_remote_type = f::remote_type;
  a.nvlink_remote_pci = f::remote_pci;
  a.common_ancestor = f::ancestor;
  a.p2p_status = f::p2p;
  const auto r = nvml_links(a);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.topology.links.size(), 6u);

  const auto& direct = at(r, "0000:18:00.0", "0000:2a:00.0");
  EXPECT_EQ(direct.type, "NV4");
  EXPECT_EQ(attribute(direct, "peer access"), "ok");
  EXPECT_EQ(attribute(direct, "pcie path"), "PXB");
  EXPECT_TRUE(direct_link(direct));

  const auto& sw = at(r, "0000:9a:00.0", "0000:ab:00.0");
  EXPECT_EQ(sw.type, "NV18");
  EXPECT_EQ(attribute(sw, "via"), "NVSwitch");

  const auto& sys = at(r, "0000:18:00.0", "0000:ab:00.0");
  EXPECT_EQ(sys.type, "SYS");
  EXPECT_FALSE(direct_link(sys));
  EXPECT_NE(attribute(sys, "peer access").find("PCIe topology does not support it"), std::string::npos)
      << attribute(sys, "peer access");

  // A driver without the NVLink and topology calls: no type to give, said per pair.
  nvml::Api bare;
  bare.device_count = f::count;
  bare.handle_by_index = f::by_index;
  bare.pci_info = f::pci;
  const auto none = nvml_links(bare);
  EXPECT_TRUE(none.topology.links.empty());
  EXPECT_EQ(none.warnings.size(), 6u);
}
