// host.*: what the machine is (OS, kernel, CPU, memory, NUMA) and the settings below the GPU
// stack that cost performance without an error: locked-memory limit, IOMMU mode, huge pages.
#include <fmt/format.h>

#include "core/units.h"
#include "doctor/checks.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

std::optional<std::uint64_t> meminfo(const std::string& text, const std::string& key) {
  const auto kv = key_values(text);
  auto it = kv.find(key);
  if (it == kv.end()) return std::nullopt;
  auto v = parse_int(split(it->second, ' ', Empties::skip).empty() ? "" : split(it->second, ' ', Empties::skip)[0]);
  if (!v || *v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*v) * (contains(it->second, "kB") ? 1024 : 1);
}

void os_kernel_cpu(const Context& c, std::vector<Finding>& out) {
  std::string os;
  for (const auto& line : lines(c.root.read("/etc/os-release").value_or("")))
    if (starts_with(line, "PRETTY_NAME=")) {
      os = line.substr(12);
      if (os.size() >= 2 && os.front() == '"') os = os.substr(1, os.size() - 2);
    }
  if (os.empty())
    add(out, Category::host, "host.os", Verdict::skip, "/etc/os-release is absent or has no PRETTY_NAME");
  else
    add(out, Category::host, "host.os", Verdict::ok, os).evidence = {"/etc/os-release: PRETTY_NAME=" + os};

  if (auto k = c.root.first_line("/proc/sys/kernel/osrelease"))
    add(out, Category::host, "host.kernel", Verdict::ok, *k).evidence = {"/proc/sys/kernel/osrelease: " + *k};
  else
    add(out, Category::host, "host.kernel", Verdict::skip, "/proc/sys/kernel/osrelease is not readable");

  std::string model;
  int cpus = 0;
  for (const auto& line : lines(c.root.read("/proc/cpuinfo", 8u << 20).value_or(""))) {
    if (starts_with(line, "processor")) ++cpus;
    if (model.empty() && starts_with(line, "model name")) model = std::string(trim(line.substr(line.find(':') + 1)));
  }
  if (cpus == 0)
    add(out, Category::host, "host.cpu", Verdict::skip, "/proc/cpuinfo is not readable");
  else
    add(out, Category::host, "host.cpu", Verdict::ok,
        fmt::format("{} logical CPUs, {}", cpus, model.empty() ? "model unknown" : model))
        .evidence = {fmt::format("/proc/cpuinfo: {} processor entries, model name: {}", cpus, model)};
}

void memory(const Context& c, std::vector<Finding>& out) {
  const auto text = c.root.read("/proc/meminfo").value_or("");
  const auto total = meminfo(text, "MemTotal"), avail = meminfo(text, "MemAvailable");
  if (!total) {
    add(out, Category::host, "host.memory", Verdict::skip, "/proc/meminfo is not readable");
    return;
  }
  const std::string ev = fmt::format("/proc/meminfo: MemTotal {}, MemAvailable {}", core::format_bytes(*total),
                                     avail ? core::format_bytes(*avail) : "unknown");
  if (avail && *avail * 10 < *total) {
    auto& f =
        add(out, Category::host, "host.memory", Verdict::warn,
            fmt::format("only {} of {} host memory available", core::format_bytes(*avail), core::format_bytes(*total)));
    f.evidence = {ev};
    f.why = "loading weights stages them through host memory; with under 10% free the load swaps or is killed";
    f.fix = "free host memory: ps aux --sort=-rss | head   # and stop what holds it";
    return;
  }
  add(out, Category::host, "host.memory", Verdict::ok,
      fmt::format("{} total, {} available", core::format_bytes(*total), avail ? core::format_bytes(*avail) : "?"))
      .evidence = {ev};
}

void numa(const Context& c, std::vector<Finding>& out) {
  std::vector<std::string> ev;
  int nodes = 0;
  for (const auto& n : c.root.glob("/sys/devices/system/node", "node[0-9]*")) {
    ++nodes;
    ev.push_back(fmt::format("/sys/devices/system/node/{}/cpulist: {}", n,
                             c.root.first_line("/sys/devices/system/node/" + n + "/cpulist").value_or("?")));
  }
  if (nodes == 0) {
    add(out, Category::host, "host.numa", Verdict::skip, "/sys/devices/system/node is absent");
    return;
  }
  add(out, Category::host, "host.numa", Verdict::ok, fmt::format("{} NUMA node{}", nodes, nodes == 1 ? "" : "s"))
      .evidence = ev;
}

void memlock(const Context& c, std::vector<Finding>& out) {
  const auto text = c.root.read("/proc/self/limits");
  std::string soft;
  for (const auto& line : lines(text.value_or("")))
    if (starts_with(line, "Max locked memory")) {
      const auto f = split(line.substr(17), ' ', Empties::skip);
      if (!f.empty()) soft = f[0];
    }
  if (soft.empty()) {
    add(out, Category::host, "host.memlock", Verdict::skip, "/proc/self/limits has no 'Max locked memory'");
    return;
  }
  const std::string shown =
      soft == "unlimited" ? soft : core::format_bytes(static_cast<std::uint64_t>(parse_int(soft).value_or(0)));
  const std::string ev = "/proc/self/limits: Max locked memory " + soft + " (ulimit -l)";
  if (soft == "unlimited") {
    add(out, Category::host, "host.memlock", Verdict::ok, "ulimit -l unlimited").evidence = {ev};
    return;
  }
  auto& f = add(out, Category::host, "host.memlock", Verdict::warn, "ulimit -l is " + shown + ", not unlimited");
  f.evidence = {ev};
  f.why =
      "RCCL/NCCL over InfiniBand or RoCE register (lock) their buffers; a small limit (64 KiB in Docker, 8 MiB "
      "by default) makes multi-node runs fail or fall back to slower paths";
  f.fix =
      "ulimit -l unlimited   # persist: '* - memlock unlimited' in /etc/security/limits.conf; Docker: --ulimit "
      "memlock=-1";
}

void iommu(const Context& c, std::vector<Finding>& out) {
  const std::string cmdline(trim(c.root.read("/proc/cmdline").value_or("")));
  std::vector<std::string> ev{"/proc/cmdline: " + (cmdline.empty() ? std::string("(unreadable)") : cmdline)};
  std::string type;  // the DMA domain type of a GPU's IOMMU group, else of the first group
  for (const auto& g : c.scan.gpus)
    if (auto t = c.root.first_line("/sys/bus/pci/devices/" + g.bus_id + "/iommu_group/type")) {
      type = *t;
      ev.push_back(fmt::format("/sys/bus/pci/devices/{}/iommu_group/type: {}", g.bus_id, *t));
      break;
    }
  const auto groups = c.root.list("/sys/kernel/iommu_groups");
  if (type.empty() && !groups.empty())
    if (auto t = c.root.first_line("/sys/kernel/iommu_groups/" + groups.front() + "/type")) {
      type = *t;
      ev.push_back(fmt::format("/sys/kernel/iommu_groups/{}/type: {}", groups.front(), *t));
    }
  ev.push_back(fmt::format("/sys/kernel/iommu_groups: {} groups", groups.size()));
  const bool pt = contains(cmdline, "iommu=pt");
  if (groups.empty()) {
    add(out, Category::host, "host.iommu", Verdict::ok, "IOMMU off (no IOMMU groups)").evidence = ev;
    return;
  }
  if (type == "identity" || (type.empty() && pt)) {
    add(out, Category::host, "host.iommu", Verdict::ok, "IOMMU in passthrough (identity) mode").evidence = ev;
    return;
  }
  if (type.empty()) {
    add(out, Category::host, "host.iommu", Verdict::ok, "IOMMU on; its mode is not published here").evidence = ev;
    return;
  }
  auto& f = add(out, Category::host, "host.iommu", Verdict::warn, "IOMMU translates device DMA (" + type + " mode)");
  f.evidence = ev;
  f.why =
      "with DMA translation every host<->device and peer transfer goes through IOMMU page tables: ROCm and "
      "NVIDIA recommend passthrough (iommu=pt) for GPU servers; translation lowers copy bandwidth and can "
      "break peer-to-peer";
  f.fix = "add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub), update-grub, reboot";
}

void hugepages(const Context& c, std::vector<Finding>& out) {
  const auto text = c.root.read("/proc/meminfo").value_or("");
  const auto total = meminfo(text, "MemTotal");
  const auto count = meminfo(text, "HugePages_Total"), size = meminfo(text, "Hugepagesize");
  const std::string thp = c.root.first_line("/sys/kernel/mm/transparent_hugepage/enabled").value_or("unknown");
  std::vector<std::string> ev{"/sys/kernel/mm/transparent_hugepage/enabled: " + thp};
  if (count)
    ev.push_back(fmt::format("/proc/meminfo: HugePages_Total {}, Hugepagesize {}", *count,
                             size ? core::format_bytes(*size) : "?"));
  const std::uint64_t reserved = count && size ? *count * *size : 0;
  if (total && reserved * 10 > *total) {
    auto& f = add(out, Category::host, "host.hugepages", Verdict::warn,
                  fmt::format("{} reserved as static huge pages", core::format_bytes(reserved)));
    f.evidence = ev;
    f.why =
        "static huge pages are taken out of ordinary memory: a serving process that does not map hugetlbfs "
        "cannot use them, so that much host memory is lost to it";
    f.fix =
        "echo 0 | sudo tee /proc/sys/vm/nr_hugepages   # and drop vm.nr_hugepages / hugepages= from sysctl and the "
        "kernel command line";
    return;
  }
  add(out, Category::host, "host.hugepages", Verdict::ok,
      fmt::format("transparent huge pages: {}; static: {}", thp, reserved ? core::format_bytes(reserved) : "none"))
      .evidence = ev;
}

}  // namespace

void check_host(const Context& c, std::vector<Finding>& out) {
  os_kernel_cpu(c, out);
  memory(c, out);
  numa(c, out);
  memlock(c, out);
  iommu(c, out);
  hugepages(c, out);
}

}  // namespace dcukit::doctor
