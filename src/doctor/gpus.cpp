#include "doctor/gpus.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/peaks.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

constexpr const char* kPciDevices = "/sys/bus/pci/devices";
constexpr const char* kKfdNodes = "/sys/class/kfd/kfd/topology/nodes";

std::optional<GpuVendor> vendor_of(std::string_view id) {
  const std::string v = lower(trim(id));
  if (v == "0x10de") return GpuVendor::nvidia;
  if (v == "0x1002") return GpuVendor::amd;
  if (v == "0x1d94") return GpuVendor::hygon;
  return std::nullopt;
}

// Display (0x03xx), co-processor (0x0b40) or processing accelerator (0x12xx) class; the BMC's VGA
// is display class too, but its vendor (ASPEED) is not one of ours.
bool gpu_class(std::string_view cls) {
  const std::string t(trim(cls));
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 16);
  if (end == t.c_str()) return false;
  return (v >> 16) == 0x03 || (v >> 8) == 0x0b40 || (v >> 16) == 0x12;
}

std::string hex_id(const std::optional<std::string>& s) {
  if (!s) return {};
  std::string v = lower(trim(*s));
  return starts_with(v, "0x") ? v.substr(2) : v;
}

std::optional<int> int_of(const std::optional<std::string>& s) {
  if (!s) return std::nullopt;
  auto v = parse_int(*s);
  if (!v || *v < -1 || *v > (1LL << 30)) return std::nullopt;
  return static_cast<int>(*v);
}

// pp_dpm_sclk: "0: 500Mhz\n1: 1500Mhz *": the current level is starred, the last is the highest.
void read_dpm(const std::string& text, std::optional<int>& current, std::optional<int>* max) {
  for (const auto& line : lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string rest(trim(std::string_view(line).substr(colon + 1)));
    const bool star = rest.find('*') != std::string::npos;
    const auto mhz = std::strtol(rest.c_str(), nullptr, 10);
    if (mhz <= 0) continue;
    if (star) current = static_cast<int>(mhz);
    if (max && (!*max || **max < mhz)) *max = static_cast<int>(mhz);
  }
}

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
    const auto simd_per_cu = num("simd_per_cu");
    if (simd_per_cu > 0) k.cus = static_cast<int>(num("simd_count") / simd_per_cu);
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

void read_amd(const util::Root& root, const std::string& dir, Gpu& g) {
  auto file = [&](const char* name) { return root.first_line(util::join_path(dir, name)); };
  if (auto v = file("product_name"); v && !trim(*v).empty()) g.name = std::string(trim(*v));
  if (auto v = file("mem_info_vram_total"); v && parse_int(*v))
    g.vram_total = static_cast<std::uint64_t>(*parse_int(*v));
  if (auto v = file("mem_info_vram_used"); v && parse_int(*v)) g.vram_used = static_cast<std::uint64_t>(*parse_int(*v));
  if (auto v = file("gpu_busy_percent"); v && parse_int(*v)) g.busy_percent = static_cast<double>(*parse_int(*v));
  if (auto v = file("power_dpm_force_performance_level")) g.perf_level = std::string(trim(*v));
  if (auto v = root.read(util::join_path(dir, "pp_dpm_sclk"))) read_dpm(*v, g.sclk_mhz, &g.sclk_max_mhz);
  if (auto v = root.read(util::join_path(dir, "pp_dpm_mclk"))) read_dpm(*v, g.mclk_mhz, nullptr);
  if (auto v = root.read(util::join_path(dir, "ras/umc_err_count"))) {  // "ue: 0\nce: 0"
    const auto kv = key_values(*v);
    if (auto it = kv.find("ue"); it != kv.end()) g.ecc_uncorrected = parse_int(it->second);
    if (auto it = kv.find("ce"); it != kv.end()) g.ecc_corrected = parse_int(it->second);
  }
}

void read_nvidia(const util::Root& root, Gpu& g) {
  auto text = root.read(fmt::format("/proc/driver/nvidia/gpus/{}/information", g.bus_id));
  if (!text) return;
  const auto kv = key_values(*text);
  if (auto it = kv.find("Model"); it != kv.end()) g.name = it->second;
  if (auto it = kv.find("GPU UUID"); it != kv.end()) g.uuid = it->second;
  g.read_from.push_back(fmt::format("/proc/driver/nvidia/gpus/{}/information", g.bus_id));
}

Link read_link_pair(const util::Root& root, const std::string& dir, const char* speed, const char* width) {
  Link l;
  if (auto v = root.first_line(util::join_path(dir, speed))) l.speed_gts = parse_link_speed(*v);
  if (auto v = int_of(root.first_line(util::join_path(dir, width)))) l.width = *v;
  return l;
}

}  // namespace

std::string_view to_string(GpuVendor v) {
  switch (v) {
    case GpuVendor::nvidia:
      return "nvidia";
    case GpuVendor::amd:
      return "amd";
    case GpuVendor::hygon:
      return "hygon";
  }
  return "?";
}

std::string isa_from_target_version(long long v) {
  if (v <= 0) return {};
  const long long major = v / 10000, minor = (v / 100) % 100, step = v % 100;
  return fmt::format("gfx{}{:x}{:x}", major, minor, step);
}

double parse_link_speed(std::string_view text) {
  const std::string t(trim(text));
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || !std::isfinite(v) || v <= 0 || v > 1000) return 0;
  return v;
}

int pcie_generation(double gts) {
  return gts > 0 ? core::pcie_gen_from_speed(fmt::format("{}", gts)) : 0;
}

GpuScan scan_gpus(const util::Root& root) {
  GpuScan scan;
  scan.sysfs_present = root.is_dir(kPciDevices);
  if (!scan.sysfs_present) return scan;
  const auto kfd = read_kfd(root);
  for (const auto& bdf : root.list(kPciDevices)) {
    const std::string dir = util::join_path(kPciDevices, bdf);
    const auto cls = root.first_line(util::join_path(dir, "class"));
    const auto vendor = vendor_of(root.first_line(util::join_path(dir, "vendor")).value_or(""));
    if (!cls || !gpu_class(*cls) || !vendor) continue;
    Gpu g;
    g.bus_id = lower(bdf);
    g.vendor = *vendor;
    g.read_from.push_back(dir);
    g.pci_id = hex_id(root.first_line(util::join_path(dir, "vendor"))) + ":" +
               hex_id(root.first_line(util::join_path(dir, "device")));
    if (auto drv = root.read_link(util::join_path(dir, "driver"))) g.driver = drv->substr(drv->rfind('/') + 1);
    g.numa_node = int_of(root.first_line(util::join_path(dir, "numa_node"))).value_or(-1);
    g.link = read_link_pair(root, dir, "current_link_speed", "current_link_width");
    g.link_max = read_link_pair(root, dir, "max_link_speed", "max_link_width");
    const std::string real_dir = root.resolve(dir);  // /sys/devices/pci0000:50/0000:50:01.1/0000:55:00.0
    const std::string parent = real_dir.substr(0, real_dir.rfind('/'));
    if (root.exists(util::join_path(parent, "max_link_speed"))) {
      g.slot_max = read_link_pair(root, parent, "max_link_speed", "max_link_width");
      g.read_from.push_back(parent);
    }
    g.nodes = root.list(util::join_path(dir, "drm"));
    if (g.vendor == GpuVendor::nvidia) {
      read_nvidia(root, g);
    } else {
      read_amd(root, dir, g);
      const auto [dom, loc] = kfd_location(g.bus_id);
      for (const auto& k : kfd) {
        bool match = k.location == loc && (k.domain < 0 || k.domain == dom);
        for (const auto& n : g.nodes)
          match = match || (k.render_minor >= 0 && n == fmt::format("renderD{}", k.render_minor));
        if (!match) continue;
        g.isa = k.isa;
        g.compute_units = k.cus;
        if (!g.sclk_max_mhz) g.sclk_max_mhz = k.max_mhz;
        g.read_from.push_back(kKfdNodes);
        break;
      }
    }
    scan.gpus.push_back(std::move(g));
  }
  return scan;
}

}  // namespace dcukit::doctor
