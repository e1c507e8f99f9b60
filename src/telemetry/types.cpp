#include "telemetry/types.h"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>

#include "util/names.h"

namespace dcukit::telemetry {
namespace {

constexpr util::Name<SourceKind> kSources[] = {
    {SourceKind::nvml, "nvml"},
    {SourceKind::rocm_smi_lib, "rocm_smi_lib"},
    {SourceKind::sysfs, "sysfs"},
    {SourceKind::hy_smi, "hy-smi"},
    {SourceKind::rocm_smi, "rocm-smi"},
    {SourceKind::amd_smi, "amd-smi"},
    {SourceKind::nvidia_smi, "nvidia-smi"},
    {SourceKind::rocminfo, "rocminfo"},
    {SourceKind::dcgmi, "dcgmi"},
    {SourceKind::rvs, "rvs"},
    {SourceKind::lspci, "lspci"},
    {SourceKind::gpustack_runtime, "gpustack-runtime"},
    {SourceKind::file, "file"},
};

constexpr util::Name<Field> kFields[] = {
    {Field::name, "name"},
    {Field::bus_id, "bus_id"},
    {Field::numa_node, "numa_node"},
    {Field::temperature_c, "temperature_c"},
    {Field::power_w, "power_w"},
    {Field::power_cap_w, "power_cap_w"},
    {Field::busy_percent, "busy_percent"},
    {Field::memory_total_bytes, "memory_total_bytes"},
    {Field::memory_used_bytes, "memory_used_bytes"},
    {Field::memory_used_percent, "memory_used_percent"},
    {Field::sclk_mhz, "sclk_mhz"},
    {Field::mclk_mhz, "mclk_mhz"},
    {Field::pcie_gen, "pcie_gen"},
    {Field::pcie_width, "pcie_width"},
    {Field::pcie_gen_max, "pcie_gen_max"},
    {Field::pcie_width_max, "pcie_width_max"},
    {Field::sclk_max_mhz, "sclk_max_mhz"},
    {Field::mclk_max_mhz, "mclk_max_mhz"},
    {Field::memory_available_bytes, "memory_available_bytes"},
    {Field::ecc_corrected, "ecc_corrected"},
    {Field::ecc_uncorrected, "ecc_uncorrected"},
    {Field::vendor, "vendor"},
    {Field::arch, "arch"},
    {Field::device_id, "device_id"},
    {Field::compute_units, "compute_units"},
    {Field::uuid, "uuid"},
    {Field::serial, "serial"},
    {Field::driver_version, "driver_version"},
    {Field::cpu_affinity, "cpu_affinity"},
    {Field::throttle_reasons, "throttle_reasons"},
    {Field::pcie_replays, "pcie_replays"},
    {Field::retired_pages, "retired_pages"},
    {Field::retirement_pending, "retirement_pending"},
    {Field::retirement_failed, "retirement_failed"},
    {Field::processes, "processes"},
};

constexpr util::Name<CheckStatus> kCheckStatuses[] = {
    {CheckStatus::pass, "pass"},
    {CheckStatus::warn, "warn"},
    {CheckStatus::fail, "fail"},
    {CheckStatus::skip, "skip"},
};

constexpr util::Name<SourceState> kSourceStates[] = {
    {SourceState::ok, "ok"},
    {SourceState::unavailable, "unavailable"},
    {SourceState::failed, "failed"},
    {SourceState::skipped, "skipped"},
};

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string_view to_string(SourceKind s) {
  return util::name_of(kSources, s);
}
std::optional<SourceKind> parse_source_kind(std::string_view s) {
  return util::value_of(kSources, s);
}
std::string_view to_string(Field f) {
  return util::name_of(kFields, f);
}
std::optional<Field> parse_field(std::string_view s) {
  return util::value_of(kFields, s);
}
std::string_view to_string(CheckStatus s) {
  return util::name_of(kCheckStatuses, s);
}
std::optional<CheckStatus> parse_check_status(std::string_view s) {
  return util::value_of(kCheckStatuses, s);
}
std::string_view to_string(SourceState s) {
  return util::name_of(kSourceStates, s);
}
std::optional<SourceState> parse_source_state(std::string_view s) {
  return util::value_of(kSourceStates, s);
}

void stamp_sources(DeviceState& d, SourceKind source) {
  visit_figures(d, [&](Field f, const auto& value) {
    if (value && !d.sources.count(f)) d.sources[f] = source;
  });
}

void derive_figures(DeviceState& d) {
  if (d.memory_used_percent || !d.memory_total_bytes || !d.memory_used_bytes || *d.memory_total_bytes == 0) return;
  const double pct = 100.0 * static_cast<double>(*d.memory_used_bytes) / static_cast<double>(*d.memory_total_bytes);
  d.memory_used_percent = std::round(pct * 10) / 10;
  if (auto it = d.sources.find(Field::memory_used_bytes); it != d.sources.end())
    d.sources[Field::memory_used_percent] = it->second;
}

std::optional<std::string> normalize_bus_id(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  // [domain:]bus:device.function
  const auto dot = s.rfind('.');
  if (dot == std::string_view::npos || dot + 2 != s.size()) return std::nullopt;
  const char fn = s[dot + 1];
  if (fn < '0' || fn > '7') return std::nullopt;
  std::string_view head = s.substr(0, dot);
  const auto c2 = head.rfind(':');
  if (c2 == std::string_view::npos) return std::nullopt;
  const std::string_view dev = head.substr(c2 + 1);
  head = head.substr(0, c2);
  const auto c1 = head.rfind(':');
  const std::string_view bus = c1 == std::string_view::npos ? head : head.substr(c1 + 1);
  const std::string_view dom = c1 == std::string_view::npos ? std::string_view("0") : head.substr(0, c1);
  if (!is_hex(dom) || !is_hex(bus) || !is_hex(dev) || bus.size() > 2 || dev.size() > 2 || dom.size() > 8)
    return std::nullopt;
  const auto hex = [](std::string_view h) { return std::stoul(std::string(h), nullptr, 16); };
  return fmt::format("{:04x}:{:02x}:{:02x}.{}", hex(dom) & 0xffff, hex(bus), hex(dev), fn);
}

std::string timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

}  // namespace dcukit::telemetry
