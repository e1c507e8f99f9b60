// placement.*: this shell's CPU affinity and memory policy against the GPUs' NUMA nodes, and the
// *_VISIBLE_DEVICES variables against the devices that exist. Seed 004: processes on the wrong
// NUMA node cost 20-40% without an error; "numactl --cpunodebind=0 --membind=0" fixes it.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "doctor/checks.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

std::vector<int> host_nodes(const Context& c) {
  std::vector<int> nodes;
  for (const auto& n : c.root.glob("/sys/devices/system/node", "node[0-9]*"))
    if (auto v = parse_int(std::string_view(n).substr(4))) nodes.push_back(static_cast<int>(*v));
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::string numactl_fix(const Context& c, const std::vector<int>& nodes) {
  if (nodes.size() == 1) return fmt::format("numactl --cpunodebind={0} --membind={0} <your command>", nodes.front());
  std::vector<std::string> per;
  for (int n : nodes) {
    std::vector<std::string> cards;
    for (const auto& g : c.scan.gpus)
      if (g.numa_node() == n) cards.push_back(g.bus_id);
    per.push_back(fmt::format("numactl --cpunodebind={0} --membind={0} ...  # for {1}", n, fmt::join(cards, " ")));
  }
  return fmt::format("{}", fmt::join(per, "; "));
}

std::string gpus_by_node(const Context& c) {
  std::vector<std::string> parts;
  for (int n : gpu_nodes(c)) {
    int count = 0;
    for (const auto& g : c.scan.gpus) count += g.numa_node() == n;
    parts.push_back(fmt::format("{} on node {}", count, n));
  }
  return fmt::format("GPUs: {}", fmt::join(parts, ", "));
}

void affinity(const Context& c, std::vector<Finding>& out) {
  const auto nodes = host_nodes(c), gnodes = gpu_nodes(c);
  const auto status = key_values(c.root.read("/proc/self/status").value_or(""));
  const auto allowed_text = status.count("Cpus_allowed_list") ? status.at("Cpus_allowed_list") : "";
  const auto allowed = parse_cpu_list(allowed_text);
  if (nodes.size() <= 1) {
    add(out, Category::placement, "placement.affinity", Verdict::ok, "one NUMA node: nothing to place").evidence = {
        fmt::format("/sys/devices/system/node: {} node", nodes.size())};
    return;
  }
  if (gnodes.empty() || !allowed || allowed->empty()) {
    add(out, Category::placement, "placement.affinity", Verdict::skip,
        gnodes.empty() ? "the GPUs' NUMA nodes are unknown" : "/proc/self/status has no Cpus_allowed_list");
    return;
  }
  std::vector<std::string> ev{"/proc/self/status: Cpus_allowed_list " + allowed_text, gpus_by_node(c)};
  std::set<int> near, runs_on;
  for (int n : nodes) {
    const auto cpus = node_cpus(c, n);
    ev.push_back(fmt::format("node {}: CPUs {}", n, format_cpu_list(cpus)));
    const bool gpu_node = std::find(gnodes.begin(), gnodes.end(), n) != gnodes.end();
    for (int cpu : cpus) {
      if (gpu_node) near.insert(cpu);
      if (std::binary_search(allowed->begin(), allowed->end(), cpu)) runs_on.insert(n);
    }
  }
  const bool inside = std::all_of(allowed->begin(), allowed->end(), [&](int cpu) { return near.count(cpu) > 0; });
  const bool touches = std::any_of(allowed->begin(), allowed->end(), [&](int cpu) { return near.count(cpu) > 0; });
  const std::string on = fmt::format("{}", fmt::join(std::vector<int>(runs_on.begin(), runs_on.end()), ","));
  if (inside && !(gnodes.size() > 1 && runs_on.size() > 1)) {  // one node: nothing to choose
    add(out, Category::placement, "placement.affinity", Verdict::ok,
        fmt::format("this shell runs on node {}, beside its GPUs", on))
        .evidence = ev;
    return;
  }
  if (!touches) {
    auto& f =
        add(out, Category::placement, "placement.affinity", Verdict::fail,
            fmt::format("this shell is bound to node {} but the GPUs are on node {}", on, fmt::join(gnodes, ",")));
    f.evidence = ev;
    f.why = "seed 004: every host<->device copy and launch crosses the socket link; 20-40% lost without an error";
    f.fix = numactl_fix(c, gnodes);
    return;
  }
  if (gnodes.size() > 1) {
    add(out, Category::placement, "placement.affinity", Verdict::ok,
        fmt::format("GPUs on nodes {}: bind each serving process to its cards' node", fmt::join(gnodes, ",")))
        .evidence = ev;
    return;
  }
  auto& f =
      add(out, Category::placement, "placement.affinity", Verdict::warn,
          fmt::format("not bound: this shell runs on nodes {} while the GPUs are on node {}", on, gnodes.front()));
  f.evidence = ev;
  f.why =
      "seed 004: unbound, the scheduler moves threads across NUMA nodes and data crosses the socket link; binding "
      "with numactl is the cheapest fix there is (20-40%)";
  f.fix = numactl_fix(c, gnodes);
}

void mempolicy(const Context& c, std::vector<Finding>& out) {
  const auto nodes = host_nodes(c), gnodes = gpu_nodes(c);
  if (!c.mem_policy) {
    add(out, Category::placement, "placement.mempolicy", Verdict::skip,
        "the memory policy is known only on the live host");
    return;
  }
  const auto& p = *c.mem_policy;
  std::vector<std::string> ev{
      fmt::format("get_mempolicy: {}{}", p.mode, p.nodes.empty() ? "" : fmt::format(" {}", fmt::join(p.nodes, ",")))};
  const auto status = key_values(c.root.read("/proc/self/status").value_or(""));
  if (status.count("Mems_allowed_list"))
    ev.push_back("/proc/self/status: Mems_allowed_list " + status.at("Mems_allowed_list"));
  if (nodes.size() <= 1 || gnodes.empty()) {
    add(out, Category::placement, "placement.mempolicy", Verdict::ok,
        nodes.size() <= 1 ? "one NUMA node: nothing to place"
                          : "memory policy " + p.mode + " (the GPUs' nodes are unknown)")
        .evidence = ev;
    return;
  }
  ev.push_back(gpus_by_node(c));
  const bool named = p.mode == "bind" || p.mode == "preferred";
  const bool on_gpu_nodes = !p.nodes.empty() && std::all_of(p.nodes.begin(), p.nodes.end(), [&](int n) {
    return std::find(gnodes.begin(), gnodes.end(), n) != gnodes.end();
  });
  if (named && on_gpu_nodes) {
    add(out, Category::placement, "placement.mempolicy", Verdict::ok,
        fmt::format("memory {} to node {}, the GPUs' node", p.mode, fmt::join(p.nodes, ",")))
        .evidence = ev;
    return;
  }
  if (named) {
    auto& f = add(out, Category::placement, "placement.mempolicy", Verdict::fail,
                  fmt::format("memory {} to node {} but the GPUs are on node {}", p.mode, fmt::join(p.nodes, ","),
                              fmt::join(gnodes, ",")));
    f.evidence = ev;
    f.why = "host buffers on the far node: pinned copies and weight loading cross the socket link";
    f.fix = numactl_fix(c, gnodes);
    return;
  }
  if (gnodes.size() == 1) {
    auto& f = add(
        out, Category::placement, "placement.mempolicy", Verdict::warn,
        fmt::format("memory policy {}: host memory is not kept on node {}, the GPUs' node", p.mode, gnodes.front()));
    f.evidence = ev;
    f.why = "seed 004: without --membind, host buffers land on whichever node the thread ran on, often the far one";
    f.fix = numactl_fix(c, gnodes);
    return;
  }
  add(out, Category::placement, "placement.mempolicy", Verdict::ok,
      fmt::format("memory policy {} with GPUs on nodes {}", p.mode, fmt::join(gnodes, ",")))
      .evidence = ev;
}

struct VisibleCheck {
  std::vector<std::string> problems;
  std::size_t visible = 0;
};

// One variable: its entries are indices into `count` devices (or UUIDs, not judged).
VisibleCheck judge_visible(const std::string& var, const std::string& value, std::size_t count) {
  VisibleCheck r;
  if (trim(value).empty()) {
    r.problems.push_back(fmt::format("{} is set but empty: no device is visible", var));
    return r;
  }
  std::set<long long> seen;
  for (const auto& raw : split(value, ',', Empties::skip)) {
    const std::string e(trim(raw));
    const auto idx = parse_int(e);
    if (!idx) {
      ++r.visible;  // a UUID or MIG name: cannot be judged from sysfs
      continue;
    }
    if (*idx < 0) {
      r.problems.push_back(fmt::format("{} has {}: it and every entry after it hide their devices", var, e));
      break;
    }
    if (static_cast<std::size_t>(*idx) >= count) {
      r.problems.push_back(fmt::format("{} names device {} but there {} {} (0-{})", var, *idx,
                                       count == 1 ? "is" : "are", count, count == 0 ? 0 : count - 1));
      continue;
    }
    if (!seen.insert(*idx).second) {
      r.problems.push_back(fmt::format("{} names device {} twice", var, *idx));
      continue;
    }
    ++r.visible;
  }
  return r;
}

void visible_devices(const Context& c, std::vector<Finding>& out) {
  std::size_t nv = 0, hip = 0;
  for (const auto& g : c.scan.gpus) (g.vendor == core::Vendor::nvidia ? nv : hip)++;
  std::vector<std::string> ev, problems;
  const auto check = [&](const char* var, std::size_t count) -> std::optional<std::size_t> {
    auto it = c.env.find(var);
    if (it == c.env.end()) return std::nullopt;
    ev.push_back(fmt::format("{}={}", var, it->second));
    auto r = judge_visible(var, it->second, count);
    problems.insert(problems.end(), r.problems.begin(), r.problems.end());
    return r.visible;
  };
  if (c.scan.gpus.empty()) {
    bool any = false;
    for (const char* v : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})
      any = any || c.env.count(v);
    add(out, Category::placement, "placement.visible_devices", any ? Verdict::skip : Verdict::ok,
        any ? "no GPU found to judge the *_VISIBLE_DEVICES variables against" : "no *_VISIBLE_DEVICES variable set");
    return;
  }
  // ROCr filters first; HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES then index what ROCr left.
  std::size_t hip_count = hip;
  if (auto v = check("ROCR_VISIBLE_DEVICES", hip)) hip_count = *v;
  check("HIP_VISIBLE_DEVICES", hip_count);
  check("CUDA_VISIBLE_DEVICES", nv > 0 ? nv : hip_count);
  if (ev.empty()) {
    add(out, Category::placement, "placement.visible_devices", Verdict::ok,
        fmt::format("no *_VISIBLE_DEVICES variable set: all {} GPUs visible", c.scan.gpus.size()));
    return;
  }
  ev.push_back(fmt::format("GPUs on the PCI bus: {} NVIDIA, {} AMD/Hygon", nv, hip));
  if (problems.empty()) {
    add(out, Category::placement, "placement.visible_devices", Verdict::ok,
        "the *_VISIBLE_DEVICES variables name existing devices")
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::placement, "placement.visible_devices", Verdict::fail,
                fmt::format("{}", fmt::join(problems, "; ")));
  f.evidence = ev;
  f.why =
      "the runtime drops a device that does not exist, and with it (CUDA) every entry after it: jobs start on "
      "fewer cards than planned, or on none";
  f.fix = fmt::format("export {}=<indices from 0 to {}>   # or unset it",
                      nv > 0 ? "CUDA_VISIBLE_DEVICES" : "HIP_VISIBLE_DEVICES", (nv > 0 ? nv : hip) - 1);
}

}  // namespace

std::vector<int> gpu_nodes(const Context& c) {
  std::set<int> s;
  for (const auto& g : c.scan.gpus)
    if (g.numa_node() >= 0) s.insert(g.numa_node());
  return {s.begin(), s.end()};
}

std::vector<int> node_cpus(const Context& c, int node) {
  return parse_cpu_list(c.root.first_line(fmt::format("/sys/devices/system/node/node{}/cpulist", node)).value_or(""))
      .value_or(std::vector<int>{});
}

void check_placement(const Context& c, std::vector<Finding>& out) {
  affinity(c, out);
  mempolicy(c, out);
  visible_devices(c, out);
  check_comm(c, out);
}

}  // namespace dcukit::doctor
