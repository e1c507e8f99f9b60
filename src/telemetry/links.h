#pragma once
// The GPU-to-GPU links of this host, read live: from the KFD topology in sysfs on AMD and Hygon
// (what rocm-smi and hy-smi --showtopo read) and from NVML on NVIDIA (what nvidia-smi topo -m
// and topo -p2p read). Endpoints are PCI bus ids ("0000:c3:00.0"), so that a caller matches them
// to its devices whatever order its runtime counts them in. Each link says what it is and,
// where the source knows, whether peer access works over it and why not:
//   type      "XGMI", "PCIE", "NV18" (NVLink with its link count), "PIX" .. "SYS" (nvidia-smi's
//             PCIe path words where there is no NVLink)
//   hops      1 for a direct link; through the CPU 2 on one CPU node, 3 across two
//   weight    KFD's link weight (15 an xGMI hop, 20 a PCIe segment, 32 between sockets; summed)
//   attributes "source" (kfd, nvml), "via" ("CPU node 0"), "peer access" ("ok", or "off: why")
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/nvml_api.h"
#include "telemetry/types.h"
#include "util/root.h"

namespace dcukit::telemetry {

/// What a reading of the links found, and what it could not read.
struct LinkReading {
  Topology topology;
  std::vector<std::string> sources;   ///< "kfd: 4 GPUs", "nvml: 8 GPUs"
  std::vector<std::string> warnings;  ///< a node or call that could not be read, by name
};

/// The KFD topology under `root` (/sys/class/kfd/kfd/topology/nodes): every pair of GPU nodes,
/// directly linked (io_links, xGMI or PCIe) or through their CPU nodes. Empty where KFD is absent.
LinkReading kfd_links(const util::Root& root);

/// Every pair of the GPUs NVML sees (an initialised `api`): NVLink (direct, or through NVSwitch),
/// else the PCIe path; peer access from nvmlDeviceGetP2PStatus with NVML's reason.
LinkReading nvml_links(const nvml::Api& api);

/// Both, on this host (NVML loaded at run time where present; KFD under `root`).
LinkReading live_links(const util::Root& root = util::Root());

/// The link between two bus ids in either order, or nullptr.
const TopoLink* find_link(const Topology& t, const std::string& bus_a, const std::string& bus_b);

/// The value of attribute `key`, or "" where the link has none.
std::string attribute(const TopoLink& l, std::string_view key);

/// What a reader of one link needs beside its type: "via CPU node 0", "peer access off: ...",
/// joined by `sep`; "" for none.
std::string link_notes(const TopoLink& l, std::string_view sep);

/// "XGMI, 1 hop, weight 15, peer access off: ... (kfd)" for a report cell; a captured link (no
/// source, no notes) reads as the tool printed it: "XGMI, 1 hop, weight 15".
std::string describe(const TopoLink& l);

/// True for a link that should carry peer copies without the host: xGMI, NVLink, and PCIe under
/// one switch (PIX, PXB), as NCCL ranks them.
bool direct_link(const TopoLink& l);

}  // namespace dcukit::telemetry
