// nvidia-smi -q -x: the same figures as -q, as XML (<nvidia_smi_log><gpu id="..."> ...). Read
// with pugixml; the element names changed across drivers as -q's keys did (<power_readings>
// before 535, <gpu_power_readings> after; ECC <single_bit>/<double_bit> before Hopper,
// <sram_*>/<dram_*> after), and both are read.
#include <fmt/format.h>

#include <pugixml.hpp>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

/// The text of the element at `path` ("fb_memory_usage/total"), or empty.
std::optional<std::string> at(const pugi::xml_node& n, const char* path) {
  const auto x = n.first_element_by_path(path);
  if (!x) return std::nullopt;
  return text_value(x.text().as_string());
}

std::optional<std::int64_t> sum(const pugi::xml_node& n, std::initializer_list<const char*> paths) {
  std::optional<std::int64_t> total;
  for (const char* p : paths)
    if (auto v = at(n, p); v && parse_whole(*v)) total = total.value_or(0) + *parse_whole(*v);
  return total;
}

void gpu_figures(DeviceState& d, const pugi::xml_node& g, Snapshot& s) {
  d.vendor = Vendor::nvidia;
  if (const char* id = g.attribute("id").as_string(); *id) d.bus_id = normalize_bus_id(id);
  if (auto v = at(g, "pci/pci_bus_id")) d.bus_id = normalize_bus_id(*v);
  d.name = at(g, "product_name");
  d.serial = at(g, "serial");
  d.uuid = at(g, "uuid");
  if (auto v = at(g, "pci/pci_device_id")) d.device_id = pci_id(v->substr(0, v->size() > 6 ? v->size() - 4 : v->size()));
  d.pcie_gen = parse_whole(at(g, "pci/pci_gpu_link_info/pcie_gen/current_link_gen").value_or(""));
  d.pcie_gen_max = parse_whole(at(g, "pci/pci_gpu_link_info/pcie_gen/max_link_gen").value_or(""));
  d.pcie_width = parse_whole(at(g, "pci/pci_gpu_link_info/link_widths/current_link_width").value_or(""));
  d.pcie_width_max = parse_whole(at(g, "pci/pci_gpu_link_info/link_widths/max_link_width").value_or(""));
  d.memory_total_bytes = parse_bytes(at(g, "fb_memory_usage/total").value_or(""), "MiB");
  d.memory_used_bytes = parse_bytes(at(g, "fb_memory_usage/used").value_or(""), "MiB");
  d.memory_available_bytes = parse_bytes(at(g, "fb_memory_usage/free").value_or(""), "MiB");
  d.busy_percent = parse_double(at(g, "utilization/gpu_util").value_or(""));
  d.temperature_c = parse_double(at(g, "temperature/gpu_temp").value_or(""));
  for (const char* section : {"gpu_power_readings", "power_readings"}) {
    for (const char* k : {"average_power_draw", "power_draw"})
      if (!d.power_w) d.power_w = parse_double(at(g, fmt::format("{}/{}", section, k).c_str()).value_or(""));
    for (const char* k : {"current_power_limit", "enforced_power_limit", "power_limit"})
      if (!d.power_cap_w) d.power_cap_w = parse_double(at(g, fmt::format("{}/{}", section, k).c_str()).value_or(""));
  }
  d.sclk_mhz = parse_whole(at(g, "clocks/sm_clock").value_or(""));
  d.mclk_mhz = parse_whole(at(g, "clocks/mem_clock").value_or(""));
  d.sclk_max_mhz = parse_whole(at(g, "max_clocks/sm_clock").value_or(""));
  d.mclk_max_mhz = parse_whole(at(g, "max_clocks/mem_clock").value_or(""));
  if (const auto v = g.first_element_by_path("ecc_errors/volatile")) {
    d.ecc_corrected = sum(v, {"sram_correctable", "dram_correctable"});
    d.ecc_uncorrected = sum(v, {"sram_uncorrectable", "sram_uncorrectable_parity", "sram_uncorrectable_secded",
                                "dram_uncorrectable"});
    if (!d.ecc_corrected) d.ecc_corrected = sum(v, {"single_bit/total"});
    if (!d.ecc_uncorrected) d.ecc_uncorrected = sum(v, {"double_bit/total"});
  }
  if (const auto p = g.child("processes")) {
    d.processes.emplace();
    for (const auto& info : p.children("process_info")) {
      ProcessUse use;
      use.pid = parse_whole(at(info, "pid").value_or("")).value_or(0);
      use.name = at(info, "process_name");
      use.memory_bytes = parse_bytes(at(info, "used_memory").value_or(""), "MiB");
      d.processes->push_back(std::move(use));
    }
  }
  int mig = 0;
  for (const auto& m : g.select_nodes("mig_devices/mig_device")) mig += m.node() ? 1 : 0;
  if (mig > 0) s.warnings.push_back(mig_warning(d.index, mig));
}

}  // namespace

Snapshot nvidia_smi_xml(const Capture& cap) {
  Snapshot s;
  const std::string text = join_lines(cap.lines);
  pugi::xml_document doc;
  const auto parsed = doc.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_doctype);
  if (!parsed)  // a paste cut short: what was read before the fault is kept, and the fault said
    s.warnings.push_back(fmt::format("nvidia-smi -q -x: not well-formed XML at byte {} ({}); read up to there",
                                     parsed.offset, parsed.description()));
  const auto log = doc.child("nvidia_smi_log");
  const auto driver = at(log, "driver_version");
  int index = 0;
  for (const auto& g : log.children("gpu")) {
    DeviceState& d = device_at(s.devices, index);
    d.index = index++;
    gpu_figures(d, g, s);
    d.driver_version = driver;
  }
  if (auto attached = parse_whole(at(log, "attached_gpus").value_or("")); attached && *attached != index)
    s.warnings.push_back(fmt::format("nvidia-smi -q -x: attached_gpus says {}, the file holds {} <gpu> elements",
                                     *attached, index));
  if (s.devices.empty()) s.warnings.push_back("nvidia-smi -q -x: no <gpu> element under <nvidia_smi_log>");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
