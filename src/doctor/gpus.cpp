#include "doctor/gpus.h"

#include <fmt/format.h>

#include <cstdio>

#include "doctor/text.h"
#include "telemetry/capture.h"
#include "telemetry/collector.h"
#include "telemetry/merge.h"
#include "telemetry/sysfs_source.h"
#include "telemetry/sysfs_values.h"

namespace dcukit::doctor {
namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
constexpr const char* kKfdNodes = "/sys/class/kfd/kfd/topology/nodes";

struct KfdNode {
  std::string isa;
  std::optional<int> cus, max_mhz;
  long long location = -1, domain = -1, render_minor = -1;
};

std::vector<KfdNode> read_kfd(const util::Root& root) {
  std::vector<KfdNode> out;
  for (const auto& n : root.list(kKfdNodes)) {
    auto text = root.read(util::join_path(util::join_path(kKfdNodes, n), "properties"));
    if (!text) continue;
    const auto kv = key_values(*text);
    auto num = [&](const char* key) -> long long {
      auto it = kv.find(key);
      return it == kv.end() ? -1 : parse_int(it->second).value_or(-1);
    };
    if (num("simd_count") <= 0) continue;  // a CPU node
    KfdNode k;
    if (const auto v = num("gfx_target_version"); v > 0) k.isa = isa_from_target_version(v);
    if (const auto per_cu = num("simd_per_cu"); per_cu > 0) k.cus = static_cast<int>(num("simd_count") / per_cu);
    if (const auto mhz = num("max_engine_clk_fcompute"); mhz > 0) k.max_mhz = static_cast<int>(mhz);
    k.location = num("location_id");
    k.domain = num("domain");
    k.render_minor = num("drm_render_minor");
    out.push_back(std::move(k));
  }
  return out;
}

// "0000:55:00.0" -> (domain 0, location (bus << 8) | (device << 3) | function), as KFD numbers it.
std::pair<long long, long long> kfd_location(const std::string& bdf) {
  unsigned dom = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(bdf.c_str(), "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4) return {-1, -1};
  return {dom, (bus << 8) | (dev << 3) | fn};
}

void add_kfd(Gpu& g, const std::vector<KfdNode>& kfd) {
  const auto [dom, loc] = kfd_location(g.bus_id);
  for (const auto& k : kfd) {
    bool match = k.location == loc && (k.domain < 0 || k.domain == dom);
    for (const auto& n : g.nodes)
      match = match || (k.render_minor >= 0 && n == fmt::format("renderD{}", k.render_minor));
    if (!match) continue;
    if (!g.state.arch && !k.isa.empty()) g.state.arch = k.isa;
    if (!g.state.compute_units && k.cus) g.state.compute_units = *k.cus;
    if (!g.state.sclk_max_mhz && k.max_mhz) g.state.sclk_max_mhz = *k.max_mhz;
    g.read_from.push_back(kKfdNodes);
    return;
  }
}

// ECC counts of amdgpu/hycu ("ue: 0\nce: 0"), which telemetry's sysfs reader leaves out.
void add_ras(Gpu& g, const util::Root& root, const std::string& dir) {
  auto v = root.read(util::join_path(dir, "ras/umc_err_count"));
  if (!v) return;
  const auto kv = key_values(*v);
  if (auto it = kv.find("ue"); it != kv.end() && !g.state.ecc_uncorrected)
    g.state.ecc_uncorrected = parse_int(it->second);
  if (auto it = kv.find("ce"); it != kv.end() && !g.state.ecc_corrected) g.state.ecc_corrected = parse_int(it->second);
}

void add_nvidia(Gpu& g, const util::Root& root) {
  const std::string path = fmt::format("/proc/driver/nvidia/gpus/{}/information", g.bus_id);
  auto text = root.read(path);
  if (!text) return;
  const auto kv = key_values(*text);
  if (auto it = kv.find("Model"); it != kv.end() && !g.state.name) g.state.name = it->second;
  if (auto it = kv.find("GPU UUID"); it != kv.end() && !g.state.uuid) g.state.uuid = it->second;
  g.read_from.push_back(path);
}

std::string hex_id(const std::optional<std::string>& s) {
  if (!s) return {};
  std::string v = lower(trim(*s));
  return starts_with(v, "0x") ? v.substr(2) : v;
}

// What sysfs says beyond telemetry's figures: the driver, the nodes, the slot, the perf level.
void add_sysfs(Gpu& g, const util::Root& root) {
  const std::string dir = util::join_path(kPciDevices, g.bus_id);
  if (!root.exists(dir)) return;
  g.read_from.push_back(dir);
  g.pci_id = hex_id(root.first_line(util::join_path(dir, "vendor"))) + ":" +
             hex_id(root.first_line(util::join_path(dir, "device")));
  if (auto drv = root.read_link(util::join_path(dir, "driver"))) g.driver = drv->substr(drv->rfind('/') + 1);
  g.nodes = root.list(util::join_path(dir, "drm"));
  if (auto v = root.first_line(util::join_path(dir, "power_dpm_force_performance_level"))) g.perf_level = *v;
  const std::string real_dir = root.resolve(dir);  // /sys/devices/pci0000:50/0000:50:01.1/0000:55:00.0
  const std::string parent = real_dir.substr(0, real_dir.rfind('/'));
  if (auto speed = root.first_line(util::join_path(parent, "max_link_speed"))) {
    telemetry::DeviceState up;  // telemetry's reading of the same two files, for the upstream port
    telemetry::apply_sysfs_value(up, "max_link_speed", *speed);
    if (auto w = root.first_line(util::join_path(parent, "max_link_width")))
      telemetry::apply_sysfs_value(up, "max_link_width", *w);
    g.slot_max = Link{static_cast<int>(up.pcie_gen_max.value_or(0)), static_cast<int>(up.pcie_width_max.value_or(0))};
    g.read_from.push_back(parent);
  }
  if (g.vendor != core::Vendor::nvidia) add_ras(g, root, dir);
}

}  // namespace

Link Gpu::link() const {
  return {static_cast<int>(state.pcie_gen.value_or(0)), static_cast<int>(state.pcie_width.value_or(0))};
}

Link Gpu::link_max() const {
  return {static_cast<int>(state.pcie_gen_max.value_or(0)), static_cast<int>(state.pcie_width_max.value_or(0))};
}

std::string isa_from_target_version(long long v) {
  if (v <= 0) return {};
  const long long major = v / 10000, minor = (v / 100) % 100, step = v % 100;
  return fmt::format("gfx{}{:x}{:x}", major, minor, step);
}

GpuScan gpus_from(const telemetry::Snapshot& snapshot, const util::Root& root) {
  GpuScan scan;
  scan.sysfs_present = root.is_dir(kPciDevices);
  scan.warnings = snapshot.warnings;
  const auto kfd = read_kfd(root);
  for (const auto& d : snapshot.devices) {
    Gpu g;
    g.state = d;
    g.bus_id = d.bus_id.value_or("");
    if (d.vendor) g.vendor = *d.vendor;
    add_sysfs(g, root);
    if (!d.vendor)
      if (auto v = core::vendor_of_pci_id(g.pci_id)) g.vendor = *v;
    if (g.pci_id.empty() && d.device_id) g.pci_id = *d.device_id;
    if (g.vendor == core::Vendor::nvidia)
      add_nvidia(g, root);
    else
      add_kfd(g, kfd);
    scan.gpus.push_back(std::move(g));
  }
  return scan;
}

GpuScan scan_gpus(const util::Root& root, bool live, std::chrono::milliseconds timeout,
                  const std::vector<std::string>& captures) {
  telemetry::Snapshot snap;
  std::string source;
  if (live) {
    telemetry::CollectOptions o;
    o.timeout = timeout;
    o.root = util::Root();  // live: this host, recording into the bundle's log where there is one
    o.root.record_to(root.log());
    snap = telemetry::collect(o);
    std::vector<std::string> parts;
    for (const auto& s : snap.sources) parts.push_back(fmt::format("{} {}", s.name, telemetry::to_string(s.state)));
    source = fmt::format("telemetry ({})", fmt::join(parts, ", "));
  } else {
    snap = telemetry::read_sysfs(root);  // through the Root: a bundle records what it read
    source = "sysfs under " + root.dir();
    for (const auto& path : captures) {
      auto cap = telemetry::read_capture_file(path);
      if (!cap) {
        snap.warnings.push_back(cap.error().message);
        continue;
      }
      telemetry::merge_into(snap, *cap, telemetry::Pairing::position);
      source += ", " + path.substr(path.rfind('/') + 1);
    }
  }
  GpuScan scan = gpus_from(snap, root);
  scan.source = std::move(source);
  scan.snapshot = std::move(snap);
  return scan;
}

}  // namespace dcukit::doctor
