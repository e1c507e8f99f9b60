// nvidia-smi's default table (GPU boxes, MIG devices, processes), dmon, and -L.
#include <algorithm>
#include <map>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

std::vector<std::string> cells_of(std::string_view line) {
  auto parts = split(line, '|');
  if (!parts.empty()) parts.erase(parts.begin());
  if (!parts.empty() && trim(parts.back()).empty()) parts.pop_back();
  return parts;
}

// A GPU index or a pid: digits only, and few enough for an int (std::stoi throws beyond).
bool is_number(std::string_view s) {
  return !s.empty() && s.size() <= 9 && std::all_of(s.begin(), s.end(), ::isdigit);
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
        d.ecc_uncorrected = parse_whole(box[0][2]);
      }
    }
    if (section == "mig" && !box.empty()) ++mig_rows;
    box.clear();
  };
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (contains(l, "Driver Version:")) {
      const auto at = l.find("Driver Version:");
      // a cut line may end at the label: no version then, not a read past the end
      if (const auto word = first_word(l.substr(at + 15)); !word.empty()) driver = text_value(word);
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
      if (header[c] == "gpu") idx = parse_whole(cells[c]);
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
        d.mclk_mhz = parse_whole(cells[c]);
      else if (h == "pclk")
        d.sclk_mhz = parse_whole(cells[c]);
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
