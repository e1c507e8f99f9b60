#include "telemetry/sysfs_values.h"

#include <fmt/format.h>

#include "telemetry/text.h"

namespace dcukit::telemetry {
namespace {

std::string_view basename(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<std::int64_t> link_gen(std::string_view speed) {
  auto q = parse_quantity(speed);  // "16.0 GT/s PCIe"
  return q ? pcie_gen_from_gts(q->value) : std::nullopt;
}

std::optional<double> micro(std::string_view s) {
  auto v = parse_double(s);
  return v ? std::optional<double>(*v / 1e6) : std::nullopt;
}

std::uint64_t little_endian(std::string_view bytes, std::size_t at, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i)
    v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

}  // namespace

std::string apply_gpu_metrics(DeviceState& d, std::string_view bytes) {
  if (bytes.size() < 4) return "gpu_metrics is shorter than its 4-byte header";
  const auto size = little_endian(bytes, 0, 2);
  const int format = static_cast<unsigned char>(bytes[2]), content = static_cast<unsigned char>(bytes[3]);
  // Where kgd_pp_interface.h puts indep_throttle_status: gpu_metrics_v1_3 (dGPUs, 120 bytes) at
  // 112, gpu_metrics_v2_2+ (APUs) at 120. 1.4 and 1.5 (MI300) have none.
  std::size_t at = 0;
  if (format == 1 && content == 3) at = 112;
  if (format == 2 && content >= 2) at = 120;
  if (at == 0) return fmt::format("gpu_metrics format {}.{} carries no ASIC-independent throttle status", format, content);
  if (bytes.size() < at + 8 || size < at + 8)
    return fmt::format("gpu_metrics format {}.{} is {} bytes, too short for its throttle status", format, content,
                       bytes.size());
  const std::uint64_t s = little_endian(bytes, at, 8);
  std::string out;
  auto add = [&](std::uint64_t mask, std::string_view name) {
    if (s & mask) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  add(0xffffull, "power cap");
  add(0xffffull << 16, "current limit");
  add(0xffffffull << 32, "thermal");
  add(0xffull << 56, "other");
  d.throttle_reasons = out;
  return {};
}

std::optional<Vendor> vendor_from_pci_id(std::string_view id) {
  const auto hex = pci_id(id);  // "0x1d94", checked
  return hex ? core::vendor_of_pci_id(*hex) : std::nullopt;
}

void read_dpm_levels(std::string_view content, std::optional<std::int64_t>& current, std::optional<std::int64_t>& max) {
  for (const auto& line : split(content, '\n')) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view rest = trim(std::string_view(line).substr(colon + 1));
    const auto mhz = parse_whole(first_word(rest));
    if (!mhz) continue;
    if (!max || *mhz > *max) max = mhz;
    if (contains(rest, "*")) current = mhz;
  }
}

bool apply_sysfs_value(DeviceState& d, std::string_view file, std::string_view content, std::string_view temp_label) {
  const std::string_view name = basename(file);
  const std::string_view v = trim(content);
  if (name == "gpu_busy_percent")
    d.busy_percent = parse_double(v);
  else if (name == "mem_info_vram_total")
    d.memory_total_bytes = parse_bytes(v);
  else if (name == "mem_info_vram_used")
    d.memory_used_bytes = parse_bytes(v);
  else if (name == "pp_dpm_sclk")
    read_dpm_levels(content, d.sclk_mhz, d.sclk_max_mhz);
  else if (name == "pp_dpm_mclk")
    read_dpm_levels(content, d.mclk_mhz, d.mclk_max_mhz);
  else if (name == "current_link_speed")
    d.pcie_gen = link_gen(v);
  else if (name == "max_link_speed")
    d.pcie_gen_max = link_gen(v);
  else if (name == "current_link_width")
    d.pcie_width = parse_whole(v);
  else if (name == "max_link_width")
    d.pcie_width_max = parse_whole(v);
  else if (name == "pcie_replay_count")
    d.pcie_replays = parse_whole(v);
  else if (name == "umc_err_count") {  // ras/umc_err_count: "ue: N" and "ce: M" lines (amdgpu, hydcu)
    for (const auto& line : split(content, '\n')) {
      const std::string_view l = trim(line);
      if (starts_with(l, "ue:")) d.ecc_uncorrected = parse_whole(trim(l.substr(3)));
      if (starts_with(l, "ce:")) d.ecc_corrected = parse_whole(trim(l.substr(3)));
    }
  } else if (name == "gpu_vram_bad_pages") {  // ras/: "0x000001ab : 0x00001000 : R" (reserved, Pending, Failed)
    std::int64_t reserved = 0, pending = 0, failed = 0;
    for (const auto& line : split(content, '\n')) {
      const std::string_view l = trim(line);
      if (l.empty()) continue;
      const char flag = l.back();
      reserved += flag == 'R';
      pending += flag == 'P';
      failed += flag == 'F';
    }
    d.retired_pages = reserved;
    d.retirement_pending = pending > 0 ? 1 : 0;
    d.retirement_failed = failed > 0 ? 1 : 0;
  } else if (name == "numa_node") {
    const auto n = parse_whole(v);
    d.numa_node = n && *n >= 0 ? n : std::nullopt;  // -1: the kernel has no NUMA placement
  } else if (name == "product_name")
    d.name = text_value(v);
  else if (name == "serial_number")
    d.serial = text_value(v);
  else if (name == "unique_id")
    d.uuid = text_value(v);
  else if (name == "device")
    d.device_id = pci_id(v);
  else if (name == "vendor")
    d.vendor = vendor_from_pci_id(v);
  else if (starts_with(name, "temp") && contains(name, "_input")) {
    const bool wanted = temp_label.empty() ? name == "temp1_input" : true;
    if (!wanted || d.temperature_c) return false;
    auto milli = parse_double(v);
    if (milli) d.temperature_c = *milli / 1000.0;
  } else if (name == "power1_average" || (name == "power1_input" && !d.power_w))
    d.power_w = micro(v);
  else if (name == "power1_cap")
    d.power_cap_w = micro(v);
  else
    return false;
  return true;
}

}  // namespace dcukit::telemetry
