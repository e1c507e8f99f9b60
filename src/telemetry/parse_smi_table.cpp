// The concise tables: hy-smi's "DCU Temp AvgPwr Perf PwrCap VRAM% DCU% Mode" (DCU era) and
// "HCU ... HCU% Dec% Enc% Mode" (6.3 drivers on), old rocm-smi's "GPU Temp AvgPwr ...", and
// rocm-smi 6's "Device Node IDs Temp Power Partitions SCLK MCLK Fan Perf PwrCap VRAM% GPU%",
// whose cells may hold commas and spaces ("0x74a1,   55354", "NPS1, SPX, 0").
#include <algorithm>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

// Joins "0x74a1," "55354" and "N/A," "N/A," "0" into single cells, and "[0x74a1" ":" "0x00]".
std::vector<std::string> table_cells(std::string_view line) {
  std::vector<std::string> out;
  for (auto& tok : split_ws(line)) {
    if (!out.empty()) {
      std::string& last = out.back();
      const bool open_bracket = last.front() == '[' && last.back() != ']';
      const bool open_paren = last.front() == '(' && last.back() != ')';
      if (last.back() == ',' || open_bracket || open_paren) {
        last += " " + tok;
        continue;
      }
    }
    out.push_back(tok);
  }
  return out;
}

bool is_header(const std::vector<std::string>& cells) {
  if (cells.size() < 3) return false;
  const std::string first = lower(cells[0]);
  if (first != "dcu" && first != "hcu" && first != "gpu" && first != "device") return false;
  for (const auto& c : cells)
    if (starts_with(lower(c), "temp")) return true;
  return false;
}

// A card index: digits only, few enough for std::stoi (a longer run is no card).
bool is_index(const std::string& s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), ::isdigit);
}

void apply_cell(DeviceState& d, const std::string& header, const std::string& cell) {
  const std::string h = lower(header);
  if (starts_with(h, "temp"))
    d.temperature_c = parse_double(cell);
  else if (h == "avgpwr" || h == "power")
    d.power_w = parse_double(cell);
  else if (h == "pwrcap")
    d.power_cap_w = parse_double(cell);
  else if (h == "vram%")
    d.memory_used_percent = parse_double(cell);
  else if (h == "dcu%" || h == "hcu%" || h == "gpu%")
    d.busy_percent = parse_double(cell);
  else if (h == "sclk")
    d.sclk_mhz = parse_whole(cell);
  else if (h == "mclk")
    d.mclk_mhz = parse_whole(cell);
  else if (h == "ids")
    d.device_id = pci_id(split(cell, ',')[0]);
  else if (starts_with(h, "[model"))
    d.device_id = pci_id(trim(split(cell.substr(1), ':')[0]));
}

}  // namespace

Snapshot smi_table(const Capture& cap) {
  Snapshot s;
  std::size_t header_at = cap.lines.size();
  std::vector<std::string> header;
  for (std::size_t i = 0; i < cap.lines.size(); ++i) {
    auto cells = table_cells(cap.lines[i]);
    if (!is_header(cells)) continue;
    header_at = i;
    for (auto& c : cells) {  // old rocm-smi: "Temp (DieEdge)" is one heading
      if (!header.empty() && c.front() == '(')
        header.back() += " " + c;
      else
        header.push_back(std::move(c));
    }
    break;
  }
  const std::string first = lower(header.empty() ? "" : header[0]);
  const bool hygon = first == "dcu" || first == "hcu";
  const SourceKind tool = hygon ? SourceKind::hy_smi : SourceKind::rocm_smi;
  // Lines before the banner are the tool's (or the shell's) complaints.
  for (std::size_t i = 0; i < header_at; ++i) {
    const std::string_view l = trim(cap.lines[i]);
    if (l.empty() || starts_with(l, "=") || l == "..." || starts_with(l, "$ ") || contains(l, "# ")) continue;
    s.warnings.push_back(stray_line(to_string(tool), l));
  }
  for (std::size_t i = header_at + 1; i < cap.lines.size(); ++i) {
    const std::string_view line = trim(cap.lines[i]);
    if (line.empty() || starts_with(line, "(")) continue;  // rocm-smi's sub-header: (DID, GUID) (Edge) ...
    if (starts_with(line, "=")) {
      if (!s.devices.empty()) break;
      continue;
    }
    auto cells = table_cells(line);
    if (cells.empty() || !is_index(cells[0])) continue;
    if (cells.size() != header.size()) {
      s.warnings.push_back(std::string(to_string(tool)) + ": a row has " + std::to_string(cells.size()) +
                           " cells under " + std::to_string(header.size()) +
                           " headings; skipped: " + std::string(line));
      continue;
    }
    DeviceState& d = device_at(s.devices, std::stoi(cells[0]));
    for (std::size_t c = 1; c < cells.size(); ++c) apply_cell(d, header[c], cells[c]);
    if (hygon)
      d.vendor = Vendor::hygon;
    else if (d.device_id)
      d.vendor = Vendor::amd;
  }
  finish(s, tool);
  return s;
}

}  // namespace dcukit::telemetry::parse
