#include "telemetry/sysfs_source.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "telemetry/sysfs_values.h"
#include "telemetry/text.h"
#include "util/files.h"
#include "util/root.h"
#include "util/sysfs.h"

namespace dcukit::telemetry {
namespace {

namespace fs = std::filesystem;

/// A whole sysfs or procfs file (they are small; 1 MiB at most is read), or nullopt.
std::optional<std::string> read_all(const std::string& path) {
  auto text = util::read_file(path, util::kKernelFileInput);
  if (!text) return std::nullopt;
  return std::move(*text);
}

/// A folder's names, sorted, read directly (for /proc, whose thousands of entries are not
/// recorded for a bundle).
std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

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
    for (const char* f : {"pp_dpm_sclk", "pp_dpm_mclk"})
      if (auto v = root.read(dir + "/" + f)) apply_sysfs_value(d, f, *v);
    read_hwmon(d, root, dir);
  }
  if (auto drv = uevent_driver(root, dir)) d.driver_version = root.first_line("/sys/module/" + *drv + "/version");
  return d;
}

struct ProcessScan {
  std::map<int, std::vector<ProcessUse>> by_device;
  int denied = 0;
};

// Processes with a device's /dev/dri node open; VRAM from fdinfo's drm-memory-vram, counted once a DRM client.
ProcessScan scan_processes(const std::string& root, const std::map<std::string, int>& node_to_device) {
  ProcessScan scan;
  for (const auto& pid : list_dir(root + "/proc")) {
    if (pid.size() > 18 || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string fd_dir = root + "/proc/" + pid + "/fd";
    std::error_code ec;
    fs::directory_iterator it(fd_dir, ec);
    if (ec) {
      scan.denied += ec.value() == EACCES;
      continue;
    }
    std::map<int, std::pair<std::set<std::string>, std::optional<std::uint64_t>>> use;  // device -> clients, vram
    for (const auto& e : it) {
      std::error_code lec;
      const std::string target = fs::read_symlink(e.path(), lec).string();
      if (lec || !starts_with(target, "/dev/dri/")) continue;
      const auto dev = node_to_device.find(target.substr(9));
      if (dev == node_to_device.end()) continue;
      auto& u = use[dev->second];
      const auto info = read_all(root + "/proc/" + pid + "/fdinfo/" + e.path().filename().string()).value_or("");
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
      p.pid = std::stoll(pid);
      p.name = util::read_first_line(root + "/proc/" + pid + "/comm");
      p.memory_bytes = u.second;
      scan.by_device[dev].push_back(std::move(p));
    }
  }
  return scan;
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
  // /proc is read directly: its fds are thousands of entries, none of which a bundle needs.
  const std::string proc_root = root.is_host() ? "" : root.dir();
  std::error_code ec;
  if (node_to_device.empty() || !fs::is_directory(proc_root + "/proc", ec)) return s;  // no /proc: processes unknown
  const ProcessScan scan = scan_processes(proc_root, node_to_device);
  for (auto& d : s.devices) {
    if (d.vendor == Vendor::nvidia) continue;
    auto it = scan.by_device.find(d.index);
    if (it == scan.by_device.end() && scan.denied > 0) continue;  // others' processes unseen: unknown, not none
    d.processes = it == scan.by_device.end() ? std::vector<ProcessUse>{} : it->second;
    d.sources[Field::processes] = SourceKind::sysfs;
  }
  if (scan.denied > 0)
    s.warnings.push_back(
        fmt::format("sysfs: the open files of {} processes are not readable by this user; processes "
                    "of other users are not listed (run as root to see them)",
                    scan.denied));
  return s;
}

Snapshot read_sysfs(const std::string& root) {
  return read_sysfs(util::Root(root));
}

SourceSample SysfsSource::sample(const Snapshot&) {
  SourceSample out;
  const std::string pci = (m_root == "/" ? "" : m_root) + "/sys/bus/pci/devices";
  if (!util::Root(m_root).is_dir("/sys/bus/pci/devices")) {
    out.state = SourceState::unavailable;
    out.detail = pci + " is absent (a container or VM without sysfs?)";
    return out;
  }
  util::Root root(m_root);
  if (m_record) root.record_to(m_record);
  out.snapshot = read_sysfs(root);
  const auto n = out.snapshot.devices.size();
  out.detail = n == 0 ? "no NVIDIA, AMD or Hygon GPU under " + pci : fmt::format("{} device{}", n, n == 1 ? "" : "s");
  return out;
}

}  // namespace dcukit::telemetry
