#include "exporter/names.h"

#include <fmt/format.h>

#include <cctype>

#include "exporter/series.h"
#include "util/names.h"

namespace dcukit::exporter {
namespace {

using serving::Labels;
using serving::MetricType;
using telemetry::DeviceState;

constexpr util::Name<NameSet> kNameSets[] = {
    {NameSet::dcukit, "dcukit"}, {NameSet::dcgm, "dcgm"}, {NameSet::amd, "amd"}};

constexpr double kMiB = 1024.0 * 1024.0;

std::optional<double> free_mib(const DeviceState& d) {
  if (!d.memory_total_bytes || !d.memory_used_bytes || *d.memory_used_bytes > *d.memory_total_bytes)
    return std::nullopt;
  return static_cast<double>(*d.memory_total_bytes - *d.memory_used_bytes) / kMiB;
}

/// A PCIe generation's transfer rate per lane in GT/s, as AMD's pcie_speed reports it.
std::optional<double> gen_speed(const std::optional<std::int64_t>& gen) {
  static constexpr double kRate[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (!gen || *gen < 1 || *gen > 6) return std::nullopt;
  return kRate[*gen];
}

std::string device_node(const DeviceState& d) {
  return (d.vendor == telemetry::Vendor::nvidia ? "nvidia" : "card") + std::to_string(d.index);
}

}  // namespace

std::optional<NameSet> parse_name_set(std::string_view s) {
  return util::value_of(kNameSets, s);
}
std::string_view to_string(NameSet n) {
  return util::name_of(kNameSets, n);
}

std::string dcgm_bus_id(std::string_view bus_id) {
  std::string domain, rest;
  const auto colon = bus_id.find(':');
  // "0000:05:00.0" has a domain; "05:00.0" (some tools) has none.
  const bool has_domain = colon != std::string_view::npos && bus_id.find(':', colon + 1) != std::string_view::npos;
  domain = has_domain ? std::string(bus_id.substr(0, colon)) : "0";
  rest = std::string(has_domain ? bus_id.substr(colon + 1) : bus_id);
  if (domain.size() < 8) domain.insert(0, 8 - domain.size(), '0');
  std::string out = domain + ":" + rest;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void write_dcgm(serving::TextWriter& w, const std::vector<DeviceState>& devices, const Identity& id) {
  using D = DeviceState;
  // dcgm-exporter's label order: gpu, UUID, pci_bus_id, device, modelName, Hostname, then the
  // label-type fields (DCGM_FI_DRIVER_VERSION).
  const auto labels = [&](const D& d) {
    Labels l{{"gpu", std::to_string(d.index)},
             {"UUID", d.uuid.value_or("")},
             {"pci_bus_id", d.bus_id ? dcgm_bus_id(*d.bus_id) : ""},
             {"device", device_node(d)},
             {"modelName", d.name.value_or("")},
             {"Hostname", id.hostname}};
    if (d.driver_version) l.emplace_back("DCGM_FI_DRIVER_VERSION", *d.driver_version);
    if (const auto job = id.job_of(d.index); !job.empty()) l.emplace_back("hpc_job", job);
    return l;
  };
  static const std::vector<Series> kSeries = {
      {"DCGM_FI_DEV_GPU_TEMP", MetricType::gauge, "GPU temperature (in C).",
       [](const D& d) { return scaled(d.temperature_c); }},
      {"DCGM_FI_DEV_POWER_USAGE", MetricType::gauge, "Power draw (in W).", [](const D& d) { return scaled(d.power_w); }},
      {"DCGM_FI_DEV_POWER_MGMT_LIMIT", MetricType::gauge, "Current power limit (in W).",
       [](const D& d) { return scaled(d.power_cap_w); }},
      {"DCGM_FI_DEV_GPU_UTIL", MetricType::gauge, "GPU utilization (in %).",
       [](const D& d) { return scaled(d.busy_percent); }},
      {"DCGM_FI_DEV_FB_USED", MetricType::gauge, "Framebuffer memory used (in MiB).",
       [](const D& d) { return scaled(d.memory_used_bytes, 1.0 / kMiB); }},
      {"DCGM_FI_DEV_FB_FREE", MetricType::gauge, "Framebuffer memory free (in MiB).", free_mib},
      {"DCGM_FI_DEV_FB_TOTAL", MetricType::gauge, "Framebuffer memory total (in MiB).",
       [](const D& d) { return scaled(d.memory_total_bytes, 1.0 / kMiB); }},
      {"DCGM_FI_DEV_SM_CLOCK", MetricType::gauge, "SM clock frequency (in MHz).",
       [](const D& d) { return scaled(d.sclk_mhz); }},
      {"DCGM_FI_DEV_MEM_CLOCK", MetricType::gauge, "Memory clock frequency (in MHz).",
       [](const D& d) { return scaled(d.mclk_mhz); }},
      {"DCGM_FI_DEV_PCIE_LINK_GEN", MetricType::gauge, "PCIe link generation.",
       [](const D& d) { return scaled(d.pcie_gen); }},
      {"DCGM_FI_DEV_PCIE_LINK_WIDTH", MetricType::gauge, "PCIe link width (lanes).",
       [](const D& d) { return scaled(d.pcie_width); }},
      {"DCGM_FI_DEV_PCIE_MAX_LINK_GEN", MetricType::gauge, "PCIe link generation the device and slot allow.",
       [](const D& d) { return scaled(d.pcie_gen_max); }},
      {"DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", MetricType::gauge, "PCIe link width the device and slot allow.",
       [](const D& d) { return scaled(d.pcie_width_max); }},
      {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", MetricType::counter, "Total number of single-bit volatile ECC errors.",
       [](const D& d) { return scaled(d.ecc_corrected); }},
      {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", MetricType::counter, "Total number of double-bit volatile ECC errors.",
       [](const D& d) { return scaled(d.ecc_uncorrected); }},
      {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", MetricType::counter, "Total number of PCIe retries.",
       [](const D& d) { return scaled(d.pcie_replays); }},
      {"DCGM_FI_DEV_ROW_REMAP_PENDING", MetricType::gauge, "Whether remapping of rows is pending (a reset applies it).",
       [](const D& d) { return scaled(d.retirement_pending); }},
      {"DCGM_FI_DEV_ROW_REMAP_FAILURE", MetricType::gauge, "Whether remapping of rows has failed.",
       [](const D& d) { return scaled(d.retirement_failed); }},
  };
  write_series(w, kSeries, devices, labels);
}

void write_amd(serving::TextWriter& w, const std::vector<DeviceState>& devices, const Identity& id) {
  using D = DeviceState;
  // AMD's mandatory labels (empty where a value does not apply, as its exporter writes them),
  // then the optional ones its dashboards select on: cluster_name, gpu_uuid, and the card's.
  const auto labels = [&](const D& d) {
    return Labels{{"gpu_id", std::to_string(d.index)},
                  {"card_model", d.name.value_or(d.device_id.value_or(""))},
                  {"gpu_partition_id", "0"},
                  {"gpu_compute_partition_type", "none"},
                  {"gpu_memory_partition_type", "none"},
                  {"deployment_mode", "baremetal"},
                  {"serial_number", d.serial.value_or("")},
                  {"hostname", id.hostname},
                  {"pod", ""},
                  {"namespace", ""},
                  {"container", ""},
                  {"job_id", id.job_of(d.index)},
                  {"job_user", ""},
                  {"job_partition", ""},
                  {"gpu_uuid", d.uuid.value_or(d.serial.value_or(d.bus_id.value_or("")))},
                  {"cluster_name", id.cluster},
                  {"card_series", d.name.value_or("")},
                  {"card_vendor", d.vendor ? std::string(telemetry::to_string(*d.vendor)) : ""},
                  {"driver_version", d.driver_version.value_or("")}};
  };
  static const std::vector<Series> kSeries = {
      // The dashboards chart a card outside the MI2xx/MI3xx part lists from the edge sensor,
      // the average package power and the per-XCC busy; each is written.
      {"gpu_edge_temperature", MetricType::gauge, "Current edge temperature (in C)",
       [](const D& d) { return scaled(d.temperature_c); }},
      {"gpu_average_package_power", MetricType::gauge, "Average package power (in W)",
       [](const D& d) { return scaled(d.power_w); }},
      {"gpu_package_power", MetricType::gauge, "Current package power (in W)",
       [](const D& d) { return scaled(d.power_w); }},
      {"gpu_power_usage", MetricType::gauge, "Power usage (in W)", [](const D& d) { return scaled(d.power_w); }},
      {"gpu_gfx_activity", MetricType::gauge, "Graphics engine usage (in %)",
       [](const D& d) { return scaled(d.busy_percent); }},
      {"gpu_gfx_busy_instantaneous", MetricType::gauge, "GFX busy (in %), per XCC",
       [](const D& d) { return scaled(d.busy_percent); },
       {{"xcc_index", "0"}}},
      {"gpu_used_vram", MetricType::gauge, "Used VRAM (in MB)",
       [](const D& d) { return scaled(d.memory_used_bytes, 1.0 / kMiB); }},
      {"gpu_total_vram", MetricType::gauge, "Total VRAM (in MB)",
       [](const D& d) { return scaled(d.memory_total_bytes, 1.0 / kMiB); }},
      {"gpu_free_vram", MetricType::gauge, "Free VRAM (in MB)", free_mib},
      {"gpu_clock", MetricType::gauge, "Current clock (in MHz), by clock_type",
       [](const D& d) { return scaled(d.sclk_mhz); },
       {{"clock_index", "0"}, {"clock_type", "system"}}},
      {"gpu_clock", MetricType::gauge, "Current clock (in MHz), by clock_type",
       [](const D& d) { return scaled(d.mclk_mhz); },
       {{"clock_index", "0"}, {"clock_type", "memory"}}},
      {"pcie_speed", MetricType::gauge, "Current PCIe speed (in GT/s)", [](const D& d) { return gen_speed(d.pcie_gen); }},
      {"pcie_max_speed", MetricType::gauge, "Maximum PCIe speed (in GT/s)",
       [](const D& d) { return gen_speed(d.pcie_gen_max); }},
      {"gpu_ecc_correct_total", MetricType::gauge, "Correctable errors",
       [](const D& d) { return scaled(d.ecc_corrected); }},
      {"gpu_ecc_uncorrect_total", MetricType::gauge, "Uncorrectable errors",
       [](const D& d) { return scaled(d.ecc_uncorrected); }},
      {"pcie_replay_count", MetricType::gauge, "Total number of PCIe replays",
       [](const D& d) { return scaled(d.pcie_replays); }},
  };
  write_series(w, kSeries, devices, labels);
  if (!devices.empty()) {
    w.family("gpu_nodes_total", MetricType::gauge, "Number of GPUs in the node");
    w.sample("gpu_nodes_total", {{"hostname", id.hostname}, {"cluster_name", id.cluster}},
             static_cast<double>(devices.size()));
  }
}

}  // namespace dcukit::exporter
