// placement.nccl_env, placement.job_numa, placement.peer_access: the communication settings
// seeds 002 and 004 touch.
// NCCL and RCCL read the same variables: an interface name that matches nothing here makes
// NCCL fail at init ("no socket interface found") or, with a prefix, pick nothing useful;
// P2P/IB/SHM switched off leave the slow path without an error; and one job's cards on both
// NUMA nodes send tensor-parallel traffic over the socket link at about a third of the speed;
// and a direct link (xGMI, NVLink, one PCIe switch) whose peer access is off carries nothing:
// every copy between those cards goes through host memory.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "doctor/checks.h"
#include "doctor/text.h"
#include "telemetry/links.h"

namespace dcukit::doctor {
namespace {

// NCCL_SOCKET_IFNAME's grammar: a comma list of prefixes; "^" excludes them, "=" asks for exact names.
std::vector<std::string> unmatched_ifnames(const std::string& value, const std::vector<std::string>& have) {
  std::string v(trim(value));
  if (v.empty() || v[0] == '^') return {};  // exclusions never leave NCCL without a name to try
  const bool exact = v[0] == '=';
  if (exact) v.erase(0, 1);
  std::vector<std::string> wanted;
  for (const auto& w : split(v, ',', Empties::skip)) wanted.emplace_back(trim(w));
  const bool any = std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) {
    return std::any_of(have.begin(), have.end(), [&](const std::string& h) { return exact ? h == w : h.starts_with(w); });
  });
  return any ? std::vector<std::string>{} : wanted;
}

void socket_ifname(const Context& c, std::vector<Finding>& out, std::vector<std::string>& problems,
                   std::vector<std::string>& ev) {
  auto have = c.root.glob("/sys/class/net", "*");
  std::sort(have.begin(), have.end());
  for (const char* var : {"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"}) {
    const auto it = c.env.find(var);
    if (it == c.env.end()) continue;
    ev.push_back(fmt::format("{}={}", var, it->second));
    if (have.empty()) continue;  // no /sys/class/net to judge against (a bundle without it)
    if (const auto missing = unmatched_ifnames(it->second, have); !missing.empty())
      problems.push_back(fmt::format("{}={} matches no interface of this host (it has {})", var, it->second,
                                     fmt::join(have, ", ")));
  }
  if (!have.empty()) ev.push_back(fmt::format("/sys/class/net: {}", fmt::join(have, " ")));
  (void)out;
}

void nccl_env(const Context& c, std::vector<Finding>& out) {
  std::vector<std::string> problems, ev;
  socket_ifname(c, out, problems, ev);
  struct Switch {
    const char *var, *cost;
  };
  constexpr Switch kSwitches[] = {
      {"NCCL_P2P_DISABLE", "GPU-to-GPU traffic goes through host memory instead of NVLink/xGMI/PCIe peer copies"},
      {"NCCL_SHM_DISABLE", "processes of one host talk over sockets instead of shared memory"},
      {"NCCL_IB_DISABLE", "hosts talk over TCP sockets instead of InfiniBand/RoCE"},
  };
  std::vector<std::string> off;
  for (const auto& s : kSwitches)
    if (auto it = c.env.find(s.var); it != c.env.end()) {
      ev.push_back(fmt::format("{}={}", s.var, it->second));
      if (trim(it->second) == "1") off.push_back(fmt::format("{}=1: {}", s.var, s.cost));
    }
  if (problems.empty() && off.empty()) {
    add(out, Category::placement, "placement.nccl_env", Verdict::ok,
        ev.empty() ? "no NCCL/RCCL transport variable set" : "the NCCL/RCCL transport variables are consistent")
        .evidence = ev;
    return;
  }
  if (!problems.empty()) {
    auto& f = add(out, Category::placement, "placement.nccl_env", Verdict::fail, fmt::format("{}", fmt::join(problems, "; ")));
    f.evidence = ev;
    f.why = "NCCL and RCCL then find no interface for their bootstrap and fail at init, or fall back to one that "
            "cannot reach the other hosts";
    f.fix = "export NCCL_SOCKET_IFNAME=<an interface listed above, e.g. the one with the hosts' addresses>   # or unset it";
    for (auto& o : off) f.evidence.push_back(o);
    return;
  }
  auto& f = add(out, Category::placement, "placement.nccl_env", Verdict::warn,
                fmt::format("{} switched off: {}", off.size() == 1 ? "a transport is" : "transports are",
                            fmt::join(off, "; ")));
  f.evidence = ev;
  f.why = "seed 002 tunes RCCL by these variables; left on from a workaround, they keep collectives on the slow path "
          "with no error (dcukit bench --only collectives shows the busbw)";
  f.fix = "unset NCCL_P2P_DISABLE NCCL_SHM_DISABLE NCCL_IB_DISABLE   # unless a known fault needs one";
}

void job_numa(const Context& c, std::vector<Finding>& out) {
  std::vector<const Gpu*> gpus;
  for (const auto& g : c.scan.gpus) gpus.push_back(&g);
  std::sort(gpus.begin(), gpus.end(), [](const Gpu* a, const Gpu* b) { return a->bus_id < b->bus_id; });
  const char* var = nullptr;
  for (const char* v : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"})
    if (c.env.count(v)) var = var ? var : v;
  if (!var || gpus.empty()) {
    add(out, Category::placement, "placement.job_numa", Verdict::ok,
        var ? "no GPU found to place the job's cards on NUMA nodes" : "no *_VISIBLE_DEVICES set: no job's cards to judge");
    return;
  }
  std::set<int> nodes;
  std::vector<std::string> ev{fmt::format("{}={}", var, c.env.at(var))};
  for (const auto& e : split(c.env.at(var), ',', Empties::skip)) {
    const auto idx = parse_int(trim(e));
    if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) >= gpus.size()) continue;  // visible_devices judges those
    const Gpu& g = *gpus[static_cast<std::size_t>(*idx)];
    ev.push_back(fmt::format("device {} = {} on NUMA node {}", *idx, g.bus_id, g.numa_node()));
    if (g.numa_node() >= 0) nodes.insert(g.numa_node());
  }
  ev.push_back("devices counted in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID; HIP's order)");
  if (nodes.size() <= 1) {
    add(out, Category::placement, "placement.job_numa", Verdict::ok,
        nodes.empty() ? "the job's cards have no NUMA node in sysfs" : fmt::format("the job's cards are all on node {}", *nodes.begin()))
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::placement, "placement.job_numa", Verdict::warn,
                fmt::format("{} puts one job's cards on NUMA nodes {}", var, fmt::join(nodes, ",")));
  f.evidence = ev;
  f.why = "seed 004: between NUMA groups tensor-parallel traffic crosses the CPU at about a third of the bandwidth; "
          "parallel efficiency falls under 60%";
  f.fix = fmt::format("export {}=<cards of one node> and bind the process there (numactl --cpunodebind=N --membind=N)", var);
}

void peer_access(const Context& c, std::vector<Finding>& out) {
  // Live, NVML's and KFD's view; a fake host or a bundle, the KFD tree it holds.
  const auto reading = c.offline ? telemetry::kfd_links(c.root) : telemetry::live_links(c.root);
  std::vector<std::string> ev = reading.sources, off;
  int direct = 0;
  for (const auto& l : reading.topology.links) {
    if (!telemetry::direct_link(l)) continue;
    ++direct;
    ev.push_back(fmt::format("{} - {}: {}", l.a, l.b, telemetry::describe(l)));
    if (const auto peer = telemetry::attribute(l, "peer access"); peer.starts_with("off"))
      off.push_back(fmt::format("{} - {} ({}): {}", l.a, l.b, *l.type, peer));
  }
  ev.insert(ev.end(), reading.warnings.begin(), reading.warnings.end());
  if (off.empty()) {
    add(out, Category::placement, "placement.peer_access", direct ? Verdict::ok : Verdict::skip,
        direct ? fmt::format("peer access is on over all {} direct GPU link{}", direct, direct == 1 ? "" : "s")
               : "no direct GPU-to-GPU link seen (NVML, KFD topology); nothing to judge")
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::placement, "placement.peer_access", Verdict::warn,
                fmt::format("peer access is off over {} of {} direct GPU link{}: {}", off.size(), direct,
                            direct == 1 ? "" : "s", fmt::join(off, "; ")));
  f.evidence = ev;
  f.why = "cards with a direct link but no peer access copy through host memory: tensor-parallel all-reduces run "
          "at PCIe-through-the-CPU speed (seed 004's parallel efficiency under 60%)";
  f.fix = "nvidia-smi topo -p2p r; cat /proc/cmdline   # check the IOMMU (iommu=pt) and PCIe ACS on the switches; "
          "then dcukit bench --only p2p shows the pairs";
}

}  // namespace

void check_comm(const Context& c, std::vector<Finding>& out) {
  nccl_env(c, out);
  job_numa(c, out);
  peer_access(c, out);
}

}  // namespace dcukit::doctor
