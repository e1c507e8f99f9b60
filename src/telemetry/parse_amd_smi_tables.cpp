// amd-smi's tables: `amd-smi monitor` (units spaced from the numbers: "248 W", "55 °C",
// "2.0/192.0 GB") and `amd-smi topology` ("ACCESS TABLE:", "WEIGHT TABLE:", ... keyed by BDF).
#include <algorithm>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

bool is_unit(const std::string& t) {
  for (const char* u : {"W", "°C", "C", "MB", "GB", "MiB", "GiB", "KB", "MHz", "GHz", "%", "mV", "GT/s"})
    if (t == u) return true;
  return false;
}

std::vector<std::string> monitor_cells(std::string_view line) {
  std::vector<std::string> out;
  for (auto& t : split_ws(line)) {
    if (!out.empty() && is_unit(t))
      out.back() += " " + t;
    else
      out.push_back(t);
  }
  return out;
}

void monitor_cell(DeviceState& d, const std::string& header, const std::string& cell) {
  if (header == "POWER")
    d.power_w = parse_double(cell);
  else if (header == "GPU_TEMP" || header == "GPU_T")
    d.temperature_c = parse_double(cell);
  else if (header == "GFX_CLK")
    d.sclk_mhz = parse_whole(cell);
  else if (header == "MEM_CLK" || header == "MEM_CLOCK")
    d.mclk_mhz = parse_whole(cell);
  else if (header == "GFX%" || header == "GFX_UTIL")
    d.busy_percent = parse_double(cell);
  else if (header == "VRAM_USED")
    d.memory_used_bytes = parse_bytes(cell, "MB");
  else if (header == "VRAM_TOTAL")
    d.memory_total_bytes = parse_bytes(cell, "MB");
  else if (header == "VRAM_USAGE") {  // "2.0/192.0 GB"
    const auto parts = split_ws(cell);
    const auto nums = split(parts.empty() ? "" : parts[0], '/');
    const std::string unit = parts.size() > 1 ? parts[1] : "MB";
    if (nums.size() == 2) {
      if (auto u = parse_double(nums[0])) d.memory_used_bytes = to_bytes(*u, unit);
      if (auto t = parse_double(nums[1])) d.memory_total_bytes = to_bytes(*t, unit);
    }
  }
}

}  // namespace

Snapshot amd_smi_monitor(const Capture& cap) {
  Snapshot s;
  std::vector<std::string> header;
  for (const auto& line : cap.lines) {
    const auto cells = monitor_cells(line);
    if (cells.empty()) continue;
    if (header.empty()) {
      if (std::find(cells.begin(), cells.end(), "GPU") != cells.end() && cells.size() > 2) header = cells;
      continue;
    }
    if (cells.size() != header.size()) {
      s.warnings.push_back("amd-smi monitor: a row does not match the headings; skipped: " + std::string(trim(line)));
      continue;
    }
    std::optional<std::int64_t> idx;
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == "GPU") idx = parse_whole(cells[c]);
    if (!idx) continue;
    DeviceState& d = device_at(s.devices, static_cast<int>(*idx));
    for (std::size_t c = 0; c < header.size(); ++c) monitor_cell(d, header[c], cells[c]);
    d.vendor = Vendor::amd;
  }
  finish(s, SourceKind::amd_smi);
  return s;
}

Snapshot amd_smi_topology(const Capture& cap) {
  Snapshot s;
  const auto matrices = find_matrices(cap.lines);
  if (!matrices.empty()) {
    const auto& labels = matrices.front().labels;
    for (std::size_t i = 0; i < labels.size(); ++i) {
      DeviceState& d = device_at(s.devices, static_cast<int>(i));
      d.bus_id = normalize_bus_id(labels[i]);
      d.vendor = Vendor::amd;
    }
  }
  add_matrix_links(s.topology, matrices);
  finish(s, SourceKind::amd_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
