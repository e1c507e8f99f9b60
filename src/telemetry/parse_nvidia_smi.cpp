// nvidia-smi's other outputs: --query-gpu CSV (with or without header and units), the default
// table (GPU boxes, MIG devices, processes), dmon, and -L.
#include <algorithm>
#include <map>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

// "memory.total [MiB]" -> {"memory.total", "MiB"}
std::pair<std::string, std::string> csv_field(std::string_view h) {
  h = trim(h);
  const auto open = h.find(" [");
  if (open == std::string_view::npos || h.back() != ']') return {std::string(h), ""};
  return {std::string(h.substr(0, open)), std::string(h.substr(open + 2, h.size() - open - 3))};
}

bool known_query_field(const std::string& f) {
  for (const char* k : {"index", "name", "uuid", "serial", "pci.bus_id", "driver_version", "temperature.gpu",
                        "memory.total", "memory.used", "utilization.gpu", "power.draw", "timestamp", "count"})
    if (f == k) return true;
  return false;
}

// The fields of a --query-gpu= command line, for output printed with noheader.
std::vector<std::string> fields_from_command(const Capture& cap) {
  std::string cmd = cap.command;
  for (const auto& l : cap.lines)
    if (contains(l, "--query-gpu=")) cmd = l;
  const auto at = cmd.find("--query-gpu=");
  if (at == std::string::npos) return {};
  std::string list = cmd.substr(at + 12);
  list = list.substr(0, list.find_first_of(" \t"));
  std::vector<std::string> out;
  for (auto& f : split(list, ',')) out.emplace_back(trim(f));
  return out;
}

void csv_value(DeviceState& d, const std::string& field, const std::string& unit, const std::string& v) {
  const auto bytes = [&] { return parse_bytes(v, unit.empty() ? "MiB" : unit); };
  if (field == "index")
    d.index = static_cast<int>(parse_int(v).value_or(d.index));
  else if (field == "name")
    d.name = text_value(v);
  else if (field == "pci.bus_id")
    d.bus_id = normalize_bus_id(v);
  else if (field == "uuid")
    d.uuid = text_value(v);
  else if (field == "serial")
    d.serial = text_value(v);
  else if (field == "driver_version")
    d.driver_version = text_value(v);
  else if (field == "temperature.gpu")
    d.temperature_c = parse_double(v);
  else if (field == "power.draw" || (field == "power.draw.average" && !d.power_w))
    d.power_w = parse_double(v);
  else if (field == "enforced.power.limit" || (field == "power.limit" && !d.power_cap_w))
    d.power_cap_w = parse_double(v);
  else if (field == "utilization.gpu")
    d.busy_percent = parse_double(v);
  else if (field == "memory.total")
    d.memory_total_bytes = bytes();
  else if (field == "memory.used")
    d.memory_used_bytes = bytes();
  else if (field == "memory.free")
    d.memory_available_bytes = bytes();
  else if (field == "clocks.current.sm" || field == "clocks.sm")
    d.sclk_mhz = parse_int(v);
  else if (field == "clocks.current.memory" || field == "clocks.mem")
    d.mclk_mhz = parse_int(v);
  else if (field == "clocks.max.sm" || field == "clocks.max.graphics")
    d.sclk_max_mhz = d.sclk_max_mhz ? d.sclk_max_mhz : parse_int(v);
  else if (field == "clocks.max.memory" || field == "clocks.max.mem")
    d.mclk_max_mhz = parse_int(v);
  else if (field == "pcie.link.gen.current" || (field == "pcie.link.gen.gpucurrent" && !d.pcie_gen))
    d.pcie_gen = parse_int(v);
  else if (field == "pcie.link.gen.max" || (field == "pcie.link.gen.gpumax" && !d.pcie_gen_max))
    d.pcie_gen_max = parse_int(v);
  else if (field == "pcie.link.width.current")
    d.pcie_width = parse_int(v);
  else if (field == "pcie.link.width.max")
    d.pcie_width_max = parse_int(v);
  else if (field == "ecc.errors.corrected.volatile.total")
    d.ecc_corrected = parse_int(v);
  else if (field == "ecc.errors.uncorrected.volatile.total")
    d.ecc_uncorrected = parse_int(v);
  else if (field == "compute_cap") {
    const auto parts = split(trim(v), '.');
    if (parts.size() == 2 && parse_int(parts[0])) d.arch = "sm_" + parts[0] + parts[1];
  } else if (field == "pci.device_id") {
    if (auto id = text_value(v); id && id->size() > 6) d.device_id = pci_id(id->substr(0, id->size() - 4));
  }
}

std::vector<std::string> cells_of(std::string_view line) {
  auto parts = split(line, '|');
  if (!parts.empty()) parts.erase(parts.begin());
  if (!parts.empty() && trim(parts.back()).empty()) parts.pop_back();
  return parts;
}

bool is_number(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit);
}

// One GPU box of the default table: two or three lines of three cells.
void table_gpu(DeviceState& d, const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const auto name = split_ws(a[0]);
  if (name.size() > 2) {
    std::string n;
    for (std::size_t i = 1; i + 1 < name.size(); ++i) n += (n.empty() ? "" : " ") + name[i];
    d.name = n;
  }
  const auto bus = split_ws(a[1]);
  if (!bus.empty()) d.bus_id = normalize_bus_id(bus[0]);
  if (b.size() < 3) return;
  // "N/A   41C    P0    69W /  700W": the fan may read N/A, so split at " / " only.
  const auto slash = b[0].rfind(" / ");
  const auto left = split_ws(b[0].substr(0, slash));
  if (left.size() >= 2) d.temperature_c = parse_double(left[1]);
  if (slash != std::string::npos && left.size() >= 4) {
    d.power_w = parse_double(left.back());
    d.power_cap_w = parse_double(b[0].substr(slash + 3));
  }
  if (const auto m = b[1].find(" / "); m != std::string::npos) {
    d.memory_used_bytes = parse_bytes(b[1].substr(0, m), "MiB");
    d.memory_total_bytes = parse_bytes(b[1].substr(m + 3), "MiB");
  }
  const auto util = split_ws(b[2]);
  if (!util.empty()) d.busy_percent = parse_double(util[0]);
  d.vendor = Vendor::nvidia;
}

std::optional<ProcessUse> table_process(const std::string& row, int& gpu) {
  const auto t = split_ws(row);
  if (t.size() < 4 || !is_number(t[0])) return std::nullopt;
  for (std::size_t i = 2; i + 1 < t.size(); ++i) {
    if (t[i] != "C" && t[i] != "G" && t[i] != "C+G" && t[i] != "M" && t[i] != "M+C") continue;
    if (!is_number(t[i - 1])) return std::nullopt;
    ProcessUse p;
    gpu = std::stoi(t[0]);
    p.pid = std::stoll(t[i - 1]);
    std::string name;
    for (std::size_t k = i + 1; k + 1 < t.size(); ++k) name += (name.empty() ? "" : " ") + t[k];
    p.name = text_value(name);
    p.memory_bytes = parse_bytes(t.back(), "MiB");
    return p;
  }
  return std::nullopt;
}

}  // namespace

Snapshot nvidia_smi_csv(const Capture& cap) {
  Snapshot s;
  std::vector<std::pair<std::string, std::string>> fields;
  std::size_t first_row = 0;
  for (std::size_t i = 0; i < cap.lines.size(); ++i) {
    if (!contains(cap.lines[i], ",") || starts_with(cap.lines[i], "$")) continue;
    for (auto& f : split(cap.lines[i], ',')) fields.push_back(csv_field(f));
    if (std::none_of(fields.begin(), fields.end(), [](auto& f) { return known_query_field(f.first); })) {
      fields.clear();
      for (auto& f : fields_from_command(cap)) fields.emplace_back(f, "");
      first_row = i;
    } else {
      first_row = i + 1;
    }
    break;
  }
  if (fields.empty()) {
    s.warnings.push_back(
        "nvidia-smi CSV without a header row, and no --query-gpu= command beside it: the columns "
        "are unknown; capture it without noheader or paste the command too");
    return s;
  }
  for (std::size_t i = first_row; i < cap.lines.size(); ++i) {
    if (!contains(cap.lines[i], ",") || starts_with(cap.lines[i], "$")) continue;
    const auto values = split(cap.lines[i], ',');
    if (values.size() != fields.size()) {
      s.warnings.push_back("nvidia-smi CSV: a row has " + std::to_string(values.size()) + " values for " +
                           std::to_string(fields.size()) + " fields; skipped");
      continue;
    }
    DeviceState d;
    d.index = static_cast<int>(s.devices.size());
    d.vendor = Vendor::nvidia;
    for (std::size_t c = 0; c < fields.size(); ++c)
      csv_value(d, fields[c].first, fields[c].second, std::string(trim(values[c])));
    s.devices.push_back(std::move(d));
  }
  finish(s, SourceKind::nvidia_smi);
  return s;
}

Snapshot nvidia_smi_table(const Capture& cap) {
  Snapshot s;
  std::string section;
  std::optional<std::string> driver;
  bool after_rule = false, no_processes = false;
  std::vector<std::vector<std::string>> box;
  std::map<int, std::vector<ProcessUse>> procs;
  int mig_rows = 0;
  const auto flush_box = [&] {
    if (section == "gpu" && box.size() >= 2 && box[0].size() >= 3 && box[1].size() >= 3) {
      const auto first = split_ws(box[0][0]);
      if (!first.empty() && is_number(first[0])) {
        DeviceState& d = device_at(s.devices, std::stoi(first[0]));
        table_gpu(d, box[0], box[1]);
        d.ecc_uncorrected = parse_int(box[0][2]);
      }
    }
    if (section == "mig" && !box.empty()) ++mig_rows;
    box.clear();
  };
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (contains(l, "Driver Version:")) {
      const auto at = l.find("Driver Version:");
      driver = text_value(split_ws(l.substr(at + 15)).front());
    }
    if (starts_with(l, "| NVIDIA-SMI"))
      section = "gpu", after_rule = false;
    else if (starts_with(l, "| MIG devices"))
      section = "mig", after_rule = false;
    else if (starts_with(l, "| Processes"))
      section = "processes", after_rule = false;
    if (starts_with(l, "|===")) {
      after_rule = true;
      continue;
    }
    if (starts_with(l, "+") || l.empty()) {
      flush_box();
      continue;
    }
    if (!after_rule || !starts_with(l, "|")) continue;
    if (section == "processes") {
      if (contains(l, "No running processes found")) no_processes = true;
      int gpu = 0;
      if (auto p = table_process(std::string(l.substr(1, l.size() - 2)), gpu)) procs[gpu].push_back(*p);
      continue;
    }
    box.push_back(cells_of(l));
  }
  flush_box();
  for (auto& d : s.devices) {
    d.driver_version = driver;
    if (no_processes || !procs.empty()) d.processes = procs[d.index];
  }
  if (mig_rows > 0)
    s.warnings.push_back("nvidia-smi: MIG is on (" + std::to_string(mig_rows) +
                         " MIG devices listed); GPU-Util reads N/A and memory is shared among them");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

Snapshot nvidia_smi_dmon(const Capture& cap) {
  Snapshot s;
  std::vector<std::string> header;
  std::map<int, int> samples;
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (starts_with(l, "#")) {
      if (header.empty()) header = split_ws(l.substr(1));
      continue;
    }
    const auto cells = split_ws(l);
    if (header.empty() || cells.size() != header.size()) continue;
    std::optional<std::int64_t> idx;
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == "gpu") idx = parse_int(cells[c]);
    if (!idx) continue;
    ++samples[static_cast<int>(*idx)];
    DeviceState& d = device_at(s.devices, static_cast<int>(*idx));
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string& h = header[c];
      if (h == "pwr")
        d.power_w = parse_double(cells[c]);
      else if (h == "gtemp")
        d.temperature_c = parse_double(cells[c]);
      else if (h == "sm")
        d.busy_percent = parse_double(cells[c]);
      else if (h == "mclk")
        d.mclk_mhz = parse_int(cells[c]);
      else if (h == "pclk")
        d.sclk_mhz = parse_int(cells[c]);
      else if (h == "fb")
        d.memory_used_bytes = parse_bytes(cells[c], "MiB");
    }
    d.vendor = Vendor::nvidia;
  }
  for (const auto& [gpu, n] : samples)
    if (n > 1)
      s.warnings.push_back("nvidia-smi dmon: " + std::to_string(n) + " samples of GPU " + std::to_string(gpu) +
                           "; the last one is shown");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

Snapshot nvidia_smi_list(const Capture& cap) {
  Snapshot s;
  std::map<int, int> mig;
  int current = -1;
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (starts_with(l, "MIG ") && current >= 0) {
      ++mig[current];
      continue;
    }
    if (!starts_with(l, "GPU ")) continue;
    const auto colon = l.find(':');
    if (colon == std::string_view::npos || !is_number(l.substr(4, colon - 4))) continue;
    current = std::stoi(std::string(l.substr(4, colon - 4)));
    DeviceState& d = device_at(s.devices, current);
    std::string_view rest = trim(l.substr(colon + 1));
    const auto uuid_at = rest.find("(UUID:");
    d.name = text_value(rest.substr(0, uuid_at));
    if (uuid_at != std::string_view::npos) {
      const std::string_view u = rest.substr(uuid_at + 6);
      d.uuid = text_value(u.substr(0, u.find(')')));
    }
    d.vendor = Vendor::nvidia;
  }
  for (const auto& [gpu, n] : mig)
    s.warnings.push_back("nvidia-smi -L: GPU " + std::to_string(gpu) + " has MIG on with " + std::to_string(n) +
                         " MIG devices");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
