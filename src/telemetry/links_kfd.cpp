// KFD's topology in sysfs: one folder a node (CPU sockets and GPUs), each with io_links (its
// direct links: a GPU's PCIe link to its CPU node, xGMI to its peers, sockets to each other) and,
// on kernels from 6.x, p2p_links (the GPU-to-GPU paths KFD derived through the CPU). A pair with
// neither is joined here through the GPUs' CPU nodes, as KFD and rocm-smi do: the weights summed
// (20 + 20 = 40 on one node, as amd-smi topology prints), 2 hops on one CPU node, 3 across two.
#include <fmt/format.h>

#include <map>
#include <optional>

#include "telemetry/links.h"
#include "telemetry/text.h"
#include "util/text.h"

namespace dcukit::telemetry {
namespace {

constexpr const char* kNodes = "/sys/class/kfd/kfd/topology/nodes";
constexpr long long kTypePcie = 2, kTypeXgmi = 11;  // HSA_IOLINK_TYPE_* (kfd_sysfs.h)
constexpr long long kNoPeerToPeerDma = 1 << 4;      // HSA_IOLINK_FLAGS_NO_PEER_TO_PEER_DMA

using Props = std::map<std::string, long long>;

// "key value" lines; a value that is not an integer (hive_id in hex on some kernels) is skipped.
std::optional<Props> read_props(const util::Root& root, const std::string& path) {
  auto text = root.read(path, 64 * 1024);
  if (!text) return std::nullopt;
  Props out;
  for (const auto& line : util::split(*text, '\n')) {
    const auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    if (auto v = util::parse_int(util::trim(line.substr(sp + 1)))) out[line.substr(0, sp)] = *v;
  }
  return out;
}

long long get(const Props& p, const char* key, long long fallback = -1) {
  auto it = p.find(key);
  return it == p.end() ? fallback : it->second;
}

struct Node {
  bool gpu = false;
  std::string bus;
  std::vector<Props> links;  ///< io_links, then p2p_links
};

TopoLink make(const std::string& a, const std::string& b, const char* type, long long hops, long long weight) {
  TopoLink l;
  l.a = a;
  l.b = b;
  l.type = type;
  l.hops = hops;
  if (weight >= 0) l.weight = weight;
  l.attributes.emplace_back("source", "kfd");
  return l;
}

// The first link of `from` to node `to`, preferring xGMI.
const Props* link_to(const Node& from, long long to) {
  const Props* found = nullptr;
  for (const auto& p : from.links)
    if (get(p, "node_to") == to && (!found || get(p, "type") == kTypeXgmi)) found = &p;
  return found;
}

// The CPU node a GPU hangs off (its PCIe io_link to a CPU node), with that link's weight.
std::optional<std::pair<long long, long long>> cpu_of(const std::map<long long, Node>& nodes, const Node& g) {
  for (const auto& p : g.links) {
    auto it = nodes.find(get(p, "node_to"));
    if (get(p, "type") == kTypePcie && it != nodes.end() && !it->second.gpu) return std::pair{it->first, get(p, "weight")};
  }
  return std::nullopt;
}

}  // namespace

LinkReading kfd_links(const util::Root& root) {
  LinkReading out;
  std::map<long long, Node> nodes;
  for (const auto& name : root.list(kNodes)) {
    const auto id = util::parse_int(name);
    if (!id) continue;
    const std::string dir = fmt::format("{}/{}", kNodes, name);
    auto props = read_props(root, dir + "/properties");
    if (!props) {
      out.warnings.push_back(fmt::format("kfd: {}/properties is not readable", dir));
      continue;
    }
    Node n;
    n.gpu = get(*props, "simd_count", 0) > 0;
    if (n.gpu) {
      const auto loc = get(*props, "location_id"), dom = get(*props, "domain", 0);
      if (loc < 0) {
        out.warnings.push_back(fmt::format("kfd: GPU node {} has no location_id; its links are left out", name));
        continue;
      }
      n.bus = bus_id_from_bdfid(static_cast<std::uint64_t>(loc) | (static_cast<std::uint64_t>(dom) << 32));
    }
    for (const char* kind : {"io_links", "p2p_links"})
      for (const auto& l : root.list(fmt::format("{}/{}", dir, kind)))
        if (auto p = read_props(root, fmt::format("{}/{}/{}/properties", dir, kind, l))) n.links.push_back(std::move(*p));
    nodes[*id] = std::move(n);
  }
  int gpus = 0;
  for (auto a = nodes.begin(); a != nodes.end(); ++a) {
    if (!a->second.gpu) continue;
    ++gpus;
    for (auto b = std::next(a); b != nodes.end(); ++b) {
      if (!b->second.gpu) continue;
      const Node &ga = a->second, &gb = b->second;
      std::optional<TopoLink> l;
      const Props* direct = link_to(ga, b->first);
      if (direct && get(*direct, "type") == kTypeXgmi) {
        l = make(ga.bus, gb.bus, "XGMI", 1, get(*direct, "weight"));
        if (const auto mb = get(*direct, "max_bandwidth"); mb > 0) l->bandwidth_gbps = static_cast<double>(mb) / 1000.0;
      } else {
        const auto ca = cpu_of(nodes, ga), cb = cpu_of(nodes, gb);
        if (!ca || !cb) {
          out.warnings.push_back(fmt::format("kfd: no link between {} and {}, and no CPU node for {}", ga.bus, gb.bus,
                                             !ca ? ga.bus : gb.bus));
          continue;
        }
        long long weight = direct ? get(*direct, "weight") : -1;
        std::string via = fmt::format("CPU node {}", ca->first);
        long long hops = 2;
        if (ca->first != cb->first) {
          hops = 3;
          via = fmt::format("CPU nodes {} and {}", ca->first, cb->first);
          if (weight < 0)
            if (const Props* x = link_to(nodes.at(ca->first), cb->first); x && ca->second >= 0 && cb->second >= 0)
              weight = ca->second + get(*x, "weight") + cb->second;
        } else if (weight < 0 && ca->second >= 0 && cb->second >= 0) {
          weight = ca->second + cb->second;
        }
        l = make(ga.bus, gb.bus, "PCIE", hops, weight);
        l->attributes.emplace_back("via", via);
      }
      if (direct && (get(*direct, "flags", 0) & kNoPeerToPeerDma))
        l->attributes.emplace_back("peer access", "off: the kernel marks the link no-peer-to-peer-DMA (KFD io_link flags)");
      out.topology.links.push_back(std::move(*l));
    }
  }
  if (gpus > 0) out.sources.push_back(fmt::format("kfd: {} GPU{}", gpus, gpus == 1 ? "" : "s"));
  return out;
}

}  // namespace dcukit::telemetry
