#include "telemetry/sysfs_source.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "telemetry/links.h"
#include "telemetry/sysfs_values.h"
#include "telemetry/text.h"
#include "util/procfs.h"
#include "util/root.h"
#include "util/sysfs.h"

namespace dcukit::telemetry {
namespace {

// Display (0x03xx), co-processor (0x0b40) or processing accelerator (0x1200) class.
bool gpu_class(const std::string& cls) {
  auto v = pci_id(cls.size() > 6 ? cls.substr(0, cls.size() - 2) : cls);  // drop the prog-if byte
  if (!v) return false;
  const unsigned c = static_cast<unsigned>(std::stoul(v->substr(2), nullptr, 16));
  return (c >> 8) == 0x03 || c == 0x0b40 || c == 0x1200;
}

void read_hwmon(DeviceState& d, const util::Root& root, const std::string& dir) {
  for (const auto& hw : root.list(dir + "/hwmon")) {
    const std::string h = dir + "/hwmon/" + hw + "/";
    std::map<std::string, std::string> label_of;  // "edge" -> "temp1_input"
    for (const auto& f : root.list(h))
      if (starts_with(f, "temp") && contains(f, "_label"))
        if (auto l = root.first_line(h + f)) label_of[*l] = f.substr(0, f.find('_')) + "_input";
    for (const char* want : {"edge", "junction", "mem"})
      if (auto it = label_of.find(want); it != label_of.end())
        if (auto v = root.first_line(h + it->second)) apply_sysfs_value(d, it->second, *v, want);
    if (auto v = root.first_line(h + "temp1_input"); v && label_of.empty()) apply_sysfs_value(d, "temp1_input", *v);
    for (const char* f : {"power1_average", "power1_input", "power1_cap"})
      if (auto v = root.first_line(h + f)) apply_sysfs_value(d, f, *v);
  }
}

std::optional<std::string> uevent_driver(const util::Root& root, const std::string& dir) {
  auto text = root.read(dir + "/uevent");
  if (!text) return std::nullopt;
  for (const auto& line : split(*text, '\n'))
    if (starts_with(line, "DRIVER=")) return line.substr(7);
  return std::nullopt;
}

DeviceState read_device(const util::Root& root, const std::string& dir, const std::string& bdf, Vendor vendor) {
  DeviceState d;
  d.bus_id = normalize_bus_id(bdf);
  d.vendor = vendor;
  for (const char* f :
       {"device", "numa_node", "current_link_speed", "current_link_width", "max_link_speed", "max_link_width"})
    if (auto v = root.first_line(dir + "/" + f)) apply_sysfs_value(d, f, *v);
  if (vendor != Vendor::nvidia) {
    for (const char* f : {"gpu_busy_percent", "mem_info_vram_total", "mem_info_vram_used", "product_name",
                          "serial_number", "unique_id"})
      if (auto v = root.first_line(dir + "/" + f)) apply_sysfs_value(d, f, *v);
    for (const char* f : {"pp_dpm_sclk", "pp_dpm_mclk", "ras/umc_err_count", "ras/gpu_vram_bad_pages", "pcie_replay_count"})
      if (auto v = root.read(dir + "/" + f)) apply_sysfs_value(d, f, *v);
    read_hwmon(d, root, dir);
    if (auto metrics = root.read(dir + "/gpu_metrics", 4096)) (void)apply_gpu_metrics(d, *metrics);
  }
  if (auto drv = uevent_driver(root, dir)) d.driver_version = root.first_line("/sys/module/" + *drv + "/version");
  return d;
}

// Processes with a device's /dev/dri node open; VRAM from fdinfo's drm-memory-vram, counted once
// a DRM client (a process may reach one client through several descriptors).
std::map<int, std::vector<ProcessUse>> processes_by_device(const util::HolderScan& scan, const util::Root& root,
                                                           const std::map<std::string, int>& node_to_device) {
  std::map<int, std::vector<ProcessUse>> out;
  for (const auto& h : scan.holders) {
    std::map<int, std::pair<std::set<std::string>, std::optional<std::uint64_t>>> use;  // device -> clients, vram
    for (std::size_t k = 0; k < h.targets.size(); ++k) {
      const auto dev = node_to_device.find(h.targets[k].substr(9));  // after "/dev/dri/"
      if (dev == node_to_device.end()) continue;
      auto& u = use[dev->second];
      const auto info = root.read(fmt::format("/proc/{}/fdinfo/{}", h.pid, h.fds[k])).value_or("");
      std::string client;
      std::optional<std::uint64_t> vram;
      for (const auto& line : split(info, '\n')) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key = line.substr(0, colon), value(trim(line.substr(colon + 1)));
        if (key == "drm-client-id") client = value;
        if (key == "drm-memory-vram") vram = parse_bytes(value, "KiB");
      }
      if (!client.empty() && !u.first.insert(client).second) continue;  // the same client through another fd
      if (vram) u.second = u.second.value_or(0) + *vram;
    }
    for (const auto& [dev, u] : use) {
      ProcessUse p;
      p.pid = h.pid;
      p.name = root.first_line(fmt::format("/proc/{}/comm", h.pid));
      p.memory_bytes = u.second;
      out[dev].push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace

Snapshot read_sysfs(const util::Root& root) {
  Snapshot s;
  const std::string pci = "/sys/bus/pci/devices";
  std::map<std::string, int> node_to_device;  // "renderD128" -> index
  for (const auto& bdf : root.list(pci)) {
    const std::string dir = pci + "/" + bdf;
    const auto cls = root.first_line(dir + "/class");
    if (!cls || !gpu_class(*cls)) continue;
    const auto vendor = vendor_from_pci_id(root.first_line(dir + "/vendor").value_or(""));
    if (!vendor) continue;  // a BMC's VGA (ASPEED), a virtual display
    DeviceState d = read_device(root, dir, bdf, *vendor);
    d.index = static_cast<int>(s.devices.size());
    for (const auto& node : root.list(dir + "/drm")) node_to_device[node] = d.index;
    stamp_sources(d, SourceKind::sysfs);
    s.devices.push_back(std::move(d));
  }
  if (node_to_device.empty() || !root.is_dir("/proc")) return s;  // no /proc: processes unknown
  const auto scan = util::scan_holders(
      [&](const std::string& target) {
        return target.rfind("/dev/dri/", 0) == 0 && node_to_device.count(target.substr(9)) > 0;
      },
      root);
  const auto by_device = processes_by_device(scan, root, node_to_device);
  for (auto& d : s.devices) {
    if (d.vendor == Vendor::nvidia) continue;
    auto it = by_device.find(d.index);
    if (it == by_device.end() && scan.unreadable > 0) continue;  // others' processes unseen: unknown, not none
    d.processes = it == by_device.end() ? std::vector<ProcessUse>{} : it->second;
    d.sources[Field::processes] = SourceKind::sysfs;
  }
  if (scan.unreadable > 0)
    s.warnings.push_back(
        fmt::format("sysfs: the open files of {} processes are not readable by this user; processes "
                    "of other users are not listed (run as root to see them)",
                    scan.unreadable));
  return s;
}

SourceSample SysfsSource::sample(const Snapshot&) {
  SourceSample out;
  const std::string pci = (m_root.is_host() ? "" : m_root.dir()) + "/sys/bus/pci/devices";
  if (!m_root.is_dir("/sys/bus/pci/devices")) {
    out.state = SourceState::unavailable;
    out.detail = pci + " is absent (a container or VM without sysfs?)";
    return out;
  }
  out.snapshot = read_sysfs(m_root);
  if (!m_links) m_links = kfd_links(m_root);  // AMD and Hygon; NVIDIA's links come from NVML
  out.snapshot.topology = m_links->topology;
  for (const auto& w : m_links->warnings) out.snapshot.warnings.push_back(w);
  const auto n = out.snapshot.devices.size();
  out.detail = n == 0 ? "no NVIDIA, AMD or Hygon GPU under " + pci : fmt::format("{} device{}", n, n == 1 ? "" : "s");
  return out;
}

}  // namespace dcukit::telemetry
