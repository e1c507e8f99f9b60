// `telemetry --from` on 30 captures from public threads and repositories (tests/fixtures/telemetry/
// public; each file's source, quirks and the reading a person makes of it are in INDEX.md there).
// Every capture is read as INDEX.md says, or refused with a reason; none is read otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/capture.h"
#include "test_telemetry_helpers.h"

using namespace dcukit::telemetry;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

/// What INDEX.md says a person reads in the capture.
struct Expected {
  std::size_t gpus = 0;               ///< 0: the capture must be refused
  std::optional<std::string> name;    ///< device 0's name
  std::optional<std::uint64_t> memory_mib;  ///< device 0's memory total
  std::optional<std::string> driver;
  std::vector<std::pair<std::string, std::optional<std::int64_t>>> affinity;  ///< per GPU: CPUs, NUMA node
  std::optional<std::string> warning;  ///< a warning the reading must carry
};

using Aff = std::vector<std::pair<std::string, std::optional<std::int64_t>>>;

Aff repeat(std::initializer_list<std::pair<std::string, std::optional<std::int64_t>>> groups, int each) {
  Aff out;
  for (const auto& g : groups)
    for (int i = 0; i < each; ++i) out.push_back(g);
  return out;
}

const std::map<std::string, Expected>& expected() {
  static const std::map<std::string, Expected> k = {
      {"nvidia-smi-qx-a100-sxm4-80gb-mig-attached4-one-gpu.xml",
       {1, "NVIDIA A100-SXM4-80GB", 81920, "535.54.03", {}, "attached_gpus says 4"}},
      {"nvidia-smi-qx-rtx4000-sff-ada-v13-595.xml", {1, "NVIDIA RTX 4000 SFF Ada Generation", 20475, "595.84", {}, {}}},
      {"nvidia-smi-qx-rtx2080-windows-wddm-516.xml", {1, "NVIDIA GeForce RTX 2080", 8192, "516.59", {}, {}}},
      {"nvidia-smi-q-percent-prefixed-2x-titan-z-369.30-truncated.txt",
       {2, "GeForce GTX TITAN Z", 6144, "369.30", {}, "quote mark ('% ')"}},
      {"nvidia-smi-q-i0-rtx4070-laptop-wddm-566.36.txt", {1, "NVIDIA GeForce RTX 4070 Laptop GPU", 8188, "566.36", {}, {}}},
      {"nvidia-smi-q-rtx4090-wsl2-wddm-537.13-xwayland-procs.txt", {1, "NVIDIA GeForce RTX 4090", 24564, "537.13", {}, {}}},
      {"nvidia-smi-a-8xa100-sxm4-40gb-535.129.03.txt", {8, "NVIDIA A100-SXM4-40GB", 40960, "535.129.03", {}, {}}},
      // The names are only in the author's annotations, not in the output: none is read.
      {"nvidia-smi-q-d-memory-no-banner-annotated-p40-k620-windows-442.74.txt", {2, {}, 22950, "442.74", {}, {}}},
      {"nvidia-smi-q-excerpt-clocks-only-no-banner-no-gpu-header.txt", {0, {}, {}, {}, {}, {}}},
      {"nvidia-smi-table-8xh100-570-md-quoted-gt-prefix-procs.txt",
       {8, "NVIDIA H100 80GB HBM3", 81559, "570.133.20", {}, "quote mark ('> ')"}},
      {"nvidia-smi-table-p100-525-double-quoted-gt-gt-carpentries.txt",
       {1, "Tesla P100-PCIE...", 12288, "525.85.12", {}, "quote mark"}},
      {"nvidia-smi-table-h100-550-indented-4sp-quoted-with-nvcc.txt", {1, "NVIDIA H100 80GB HBM3", 81559, "550.144.03", {}, {}}},
      {"nvidia-smi-table-mx250-windows-tcc-wddm-419.71-indented-prompt.txt", {1, "GeForce MX250", 2048, "419.71", {}, {}}},
      {"nvidia-smi-topo-m-8xh100-12nic-runtogether-NIC8NIC9-NODENODE-excerpt.txt",
       {8, {}, {}, {}, repeat({{"0-55,112-167", 0}, {"56-111,168-223", 1}}, 4), "run together"}},
      {"nvidia-smi-topo-m-8xa100-nps4-10nic-trailing-tabs-no-gpu-numa-id.txt",
       {8, {}, {}, {}, repeat({{"48-63,176-191", 3}, {"16-31,144-159", 1}, {"112-127,240-255", 7}, {"80-95,208-223", 5}}, 2), {}}},
      {"nvidia-smi-topo-m-8xa100-nv12-17nic-bond-one-numa.txt", {8, {}, {}, {}, repeat({{"0-103", 0}}, 8), {}}},
      {"nvidia-smi-topo-m-2x1080ti-phb-numa-na.txt", {2, {}, {}, {}, repeat({{"0-11", std::nullopt}}, 2), {}}},
      {"nvidia-smi-topo-m-embedded-in-sglang-check-env-8xh100-8nic.txt",
       {8, {}, {}, {}, repeat({{"0-47,96-143", 0}, {"48-95,144-191", 1}}, 4), {}}},
      // GPU4-7's CPU Affinity cells are empty (a Slurm cgroup): their NUMA node is 1, not their CPUs.
      {"nvidia-smi-topo-m-8xa100-pcie-slurm-empty-cpu-affinity-gpu4-7-excerpt.txt",
       {8, {}, {}, {}, repeat({{"0-15,56-71", 0}, {"", 1}}, 4), {}}},
      {"nvidia-smi-topo-m-2of8-a100-slurm-10nic-7space-header-excerpt.txt",
       {2, {}, {}, {}, repeat({{"48-63,176-191", 3}}, 2), {}}},
      {"rocm-smi-csv-productname-use-vram-rx7900xt-with-prompt.csv", {1, "Radeon RX 7900 XT", 20464, {}, {}, {}}},
      {"rocm-smi-csv-uniqueid-vram-rx6800-plus-raphael-igpu.csv",
       {2, "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]", 16368, {}, {}, {}}},
      {"rocm-smi-json-allinfo-6xmi100-rocm5.7.1.json", {6, "Arcturus GL-XL [Instinct MI100]", 32752, "6.2.4", {}, {}}},
      {"rocm-smi-json-allinfo-rx6700xt-rocm6.1.2.json", {1, "Navi 22 [Radeon RX 6700/6700 XT / 6800M]", 12272, "6.3.6", {}, {}}},
      {"rocm-smi-json-allinfo-mi50-32gb-drv5.9.17.json", {1, "Radeon Instinct MI50 32GB", 32752, "5.9.17", {}, {}}},
      {"amd-smi-static-strix-gfx1150-apu-indented.txt", {1, "AMD Radeon Graphics", 65536, {}, {}, {}}},
      {"amd-smi-metric-strix-gfx1150-apu-indented.txt", {1, {}, 65536, {}, {}, {}}},
      {"amd-smi-static-gpu0-phoenix3-780m-proxmox-kernel-driver-excerpt.txt", {1, "Phoenix3", {}, "7.0.14-17-pve", {}, {}}},
      {"hy-smi-plain-hcu-4card-k100ai-400w-dtk25.04.2-with-trailing-cmds.txt", {4, {}, {}, {}, {}, {}}},
      {"hy-smi-plain-dcu-1card-300w-banner-only-no-footer.txt", {1, {}, {}, {}, {}, {}}},
  };
  return k;
}

}  // namespace

TEST(TelemetryPublic, EveryCaptureIsReadAsAPersonReadsItOrRefused) {
  const fs::path dir = testutil::telemetry_fixture("public");
  std::size_t seen = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name == "INDEX.md") continue;
    SCOPED_TRACE(name);
    ++seen;
    const auto it = expected().find(name);
    ASSERT_NE(it, expected().end()) << "a capture without a row in this test; add one from INDEX.md";
    const Expected& x = it->second;
    auto s = read_capture_file(e.path().string());
    if (x.gpus == 0) {
      ASSERT_FALSE(s) << "read as " << s->format << " with " << s->devices.size() << " devices";
      EXPECT_NE(s.error().message.find(name), std::string::npos) << s.error().message;
      continue;
    }
    ASSERT_TRUE(s) << s.error().message;
    ASSERT_EQ(s->devices.size(), x.gpus);
    const auto& d = s->devices[0];
    if (x.name) {
      EXPECT_EQ(d.name, x.name);
    } else if (x.affinity.empty()) {
      EXPECT_FALSE(d.name && d.name->find("P40") != std::string::npos) << "a name from the author's notes";
    }
    if (x.memory_mib) {
      EXPECT_EQ(d.memory_total_bytes, *x.memory_mib * kMiB);
    }
    if (x.driver) {
      EXPECT_EQ(d.driver_version, x.driver);
    }
    for (std::size_t i = 0; i < x.affinity.size(); ++i) {
      SCOPED_TRACE(i);
      const auto& g = s->devices.at(i);
      if (x.affinity[i].first.empty()) {
        EXPECT_FALSE(g.cpu_affinity) << *g.cpu_affinity;
      } else {
        EXPECT_EQ(g.cpu_affinity, x.affinity[i].first);
      }
      EXPECT_EQ(g.numa_node, x.affinity[i].second);
    }
    if (x.warning) {
      EXPECT_TRUE(testutil::has_warning(*s, *x.warning)) << *x.warning;
    }
  }
  EXPECT_EQ(seen, expected().size());
}
