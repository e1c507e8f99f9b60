// NVML's view of the links between NVIDIA GPUs, as nvidia-smi topo -m and topo -p2p r print it:
// NVLink lanes counted per peer (a lane to an NVSwitch reaches every GPU on the switches, so two
// GPUs that both have switch lanes are NV<the smaller count> apart, as NV18 on an HGX board), else
// the PCIe path from the common ancestor (PIX one switch, PXB several, PHB the host bridge, NODE
// across host bridges of one NUMA node, SYS across the socket link); and peer reads' status with
// NVML's reason where they are not possible.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "telemetry/links.h"

namespace dcukit::telemetry {
namespace {

std::string path_word(int level) {
  switch (level) {
    case 0: return "SAME";  // NVML_TOPOLOGY_INTERNAL: two GPUs of one board
    case 10: return "PIX";
    case 20: return "PXB";
    case 30: return "PHB";
    case 40: return "NODE";
    case 50: return "SYS";
    default: return fmt::format("level {}", level);
  }
}

std::string p2p_reason(int status) {
  switch (status) {
    case 1: return "the chipset does not support peer-to-peer (CNS)";
    case 2: return "the GPU does not support peer-to-peer (GNS)";
    case 3: return "the PCIe topology does not support it: an IOMMU, ACS on a switch, or a path across sockets (TNS)";
    case 4: return "disabled by a driver registry key (NVreg_RegistryDwords)";
    case 5: return "not supported (NS)";
    default: return fmt::format("unknown (NVML status {})", status);
  }
}

struct Gpu {
  nvml::Device handle = nullptr;
  std::string bus;
  std::map<std::string, int> lanes;  ///< NVLink lanes to a peer GPU, by its bus id
  int switch_lanes = 0;
};

void count_lanes(const nvml::Api& a, Gpu& g) {
  if (!a.nvlink_state) return;
  for (unsigned link = 0; link < nvml::kNvLinkMaxLinks; ++link) {
    int active = 0;
    if (a.nvlink_state(g.handle, link, &active) != nvml::kSuccess || !active) continue;
    int type = -1;
    if (a.nvlink_remote_type && a.nvlink_remote_type(g.handle, link, &type) == nvml::kSuccess &&
        type == nvml::kNvLinkRemoteSwitch) {
      ++g.switch_lanes;
      continue;
    }
    nvml::PciInfo pci{};
    if (!a.nvlink_remote_pci || a.nvlink_remote_pci(g.handle, link, &pci) != nvml::kSuccess) continue;
    pci.busId[sizeof pci.busId - 1] = '\0';
    if (auto bus = normalize_bus_id(pci.busId)) ++g.lanes[*bus];
  }
}

}  // namespace

LinkReading nvml_links(const nvml::Api& a) {
  LinkReading out;
  unsigned count = 0;
  if (a.device_count(&count) != nvml::kSuccess) {
    out.warnings.push_back("nvml: nvmlDeviceGetCount_v2 failed; no links read");
    return out;
  }
  std::vector<Gpu> gpus;
  for (unsigned i = 0; i < count; ++i) {
    Gpu g;
    nvml::PciInfo pci{};
    if (a.handle_by_index(i, &g.handle) != nvml::kSuccess || !a.pci_info || a.pci_info(g.handle, &pci) != nvml::kSuccess) {
      out.warnings.push_back(fmt::format("nvml: GPU {} has no handle or PCI address; its links are left out", i));
      continue;
    }
    pci.busId[sizeof pci.busId - 1] = '\0';
    g.bus = normalize_bus_id(pci.busId).value_or(pci.busId);
    count_lanes(a, g);
    gpus.push_back(std::move(g));
  }
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = i + 1; j < gpus.size(); ++j) {
      const Gpu &x = gpus[i], &y = gpus[j];
      TopoLink l;
      l.a = x.bus;
      l.b = y.bus;
      const auto lanes_of = [](const Gpu& g, const std::string& peer) {
        auto it = g.lanes.find(peer);
        return it == g.lanes.end() ? 0 : it->second;
      };
      int lanes = std::max(lanes_of(x, y.bus), lanes_of(y, x.bus));
      const bool via_switch = lanes == 0 && x.switch_lanes > 0 && y.switch_lanes > 0;
      if (via_switch) lanes = std::min(x.switch_lanes, y.switch_lanes);
      int level = -1;
      const bool has_level = a.common_ancestor && a.common_ancestor(x.handle, y.handle, &level) == nvml::kSuccess;
      if (lanes > 0) {
        l.type = fmt::format("NV{}", lanes);
        l.hops = 1;
      } else if (has_level) {
        l.type = path_word(level);
      }
      l.attributes.emplace_back("source", "nvml");
      if (via_switch) l.attributes.emplace_back("via", "NVSwitch");
      if (has_level) l.attributes.emplace_back("pcie path", path_word(level));
      int status = -1;
      if (a.p2p_status && a.p2p_status(x.handle, y.handle, nvml::kP2PCapsRead, &status) == nvml::kSuccess)
        l.attributes.emplace_back("peer access", status == 0 ? "ok" : "off: " + p2p_reason(status));
      if (!l.type) {
        out.warnings.push_back(fmt::format("nvml: neither NVLink nor a PCIe path known between {} and {}", x.bus, y.bus));
        continue;
      }
      out.topology.links.push_back(std::move(l));
    }
  out.sources.push_back(fmt::format("nvml: {} GPU{}", gpus.size(), gpus.size() == 1 ? "" : "s"));
  return out;
}

}  // namespace dcukit::telemetry
