// nvidia-smi --query-gpu=... --format=csv: a header of field names with their units
// ("memory.total [MiB]"), or none (noheader), in which case the fields are taken from the
// --query-gpu= of the command line beside the output; values with or without units, "[N/A]",
// "[Not Supported]", "[Requested functionality has been deprecated]".
#include <algorithm>

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

// One CSV cell: its text and the unit its header gives ("memory.total [MiB]").
struct Cell {
  const std::string& text;
  const std::string& unit;
  std::optional<std::uint64_t> bytes() const { return parse_bytes(text, unit.empty() ? "MiB" : unit); }
};

template <class T>
void once(std::optional<T>& figure, std::optional<T> value) {
  if (!figure) figure = std::move(value);
}

// The query fields read, the preferred spelling of a figure first (a later one only fills a gap).
using Setter = void (*)(DeviceState&, const Cell&);
const std::vector<std::pair<std::string_view, Setter>> kCsvFields{
    {"index", [](DeviceState& d, const Cell& c) { d.index = static_cast<int>(parse_whole(c.text).value_or(d.index)); }},
    {"name", [](DeviceState& d, const Cell& c) { once(d.name, text_value(c.text)); }},
    {"pci.bus_id", [](DeviceState& d, const Cell& c) { once(d.bus_id, normalize_bus_id(c.text)); }},
    {"uuid", [](DeviceState& d, const Cell& c) { once(d.uuid, text_value(c.text)); }},
    {"serial", [](DeviceState& d, const Cell& c) { once(d.serial, text_value(c.text)); }},
    {"driver_version", [](DeviceState& d, const Cell& c) { once(d.driver_version, text_value(c.text)); }},
    {"temperature.gpu", [](DeviceState& d, const Cell& c) { once(d.temperature_c, parse_double(c.text)); }},
    {"power.draw", [](DeviceState& d, const Cell& c) { once(d.power_w, parse_double(c.text)); }},
    {"power.draw.average", [](DeviceState& d, const Cell& c) { once(d.power_w, parse_double(c.text)); }},
    {"enforced.power.limit", [](DeviceState& d, const Cell& c) { once(d.power_cap_w, parse_double(c.text)); }},
    {"power.limit", [](DeviceState& d, const Cell& c) { once(d.power_cap_w, parse_double(c.text)); }},
    {"utilization.gpu", [](DeviceState& d, const Cell& c) { once(d.busy_percent, parse_double(c.text)); }},
    {"memory.total", [](DeviceState& d, const Cell& c) { once(d.memory_total_bytes, c.bytes()); }},
    {"memory.used", [](DeviceState& d, const Cell& c) { once(d.memory_used_bytes, c.bytes()); }},
    {"memory.free", [](DeviceState& d, const Cell& c) { once(d.memory_available_bytes, c.bytes()); }},
    {"clocks.current.sm", [](DeviceState& d, const Cell& c) { once(d.sclk_mhz, parse_whole(c.text)); }},
    {"clocks.sm", [](DeviceState& d, const Cell& c) { once(d.sclk_mhz, parse_whole(c.text)); }},
    {"clocks.current.memory", [](DeviceState& d, const Cell& c) { once(d.mclk_mhz, parse_whole(c.text)); }},
    {"clocks.mem", [](DeviceState& d, const Cell& c) { once(d.mclk_mhz, parse_whole(c.text)); }},
    {"clocks.max.sm", [](DeviceState& d, const Cell& c) { once(d.sclk_max_mhz, parse_whole(c.text)); }},
    {"clocks.max.memory", [](DeviceState& d, const Cell& c) { once(d.mclk_max_mhz, parse_whole(c.text)); }},
    {"clocks.max.mem", [](DeviceState& d, const Cell& c) { once(d.mclk_max_mhz, parse_whole(c.text)); }},
    {"pcie.link.gen.current", [](DeviceState& d, const Cell& c) { once(d.pcie_gen, parse_whole(c.text)); }},
    {"pcie.link.gen.gpucurrent", [](DeviceState& d, const Cell& c) { once(d.pcie_gen, parse_whole(c.text)); }},
    {"pcie.link.gen.max", [](DeviceState& d, const Cell& c) { once(d.pcie_gen_max, parse_whole(c.text)); }},
    {"pcie.link.gen.gpumax", [](DeviceState& d, const Cell& c) { once(d.pcie_gen_max, parse_whole(c.text)); }},
    {"pcie.link.width.current", [](DeviceState& d, const Cell& c) { once(d.pcie_width, parse_whole(c.text)); }},
    {"pcie.link.width.max", [](DeviceState& d, const Cell& c) { once(d.pcie_width_max, parse_whole(c.text)); }},
    {"ecc.errors.corrected.volatile.total",
     [](DeviceState& d, const Cell& c) { once(d.ecc_corrected, parse_whole(c.text)); }},
    {"ecc.errors.uncorrected.volatile.total",
     [](DeviceState& d, const Cell& c) { once(d.ecc_uncorrected, parse_whole(c.text)); }},
    {"compute_cap",  // "9.0" -> sm_90
     [](DeviceState& d, const Cell& c) {
       const auto parts = split(trim(c.text), '.');
       if (parts.size() == 2 && parse_whole(parts[0]))
         once(d.arch, std::optional<std::string>("sm_" + parts[0] + parts[1]));
     }},
    {"pci.device_id",  // "0x233010DE": device id << 16 | vendor id
     [](DeviceState& d, const Cell& c) {
       if (auto id = text_value(c.text); id && id->size() > 6) once(d.device_id, pci_id(id->substr(0, id->size() - 4)));
     }},
};

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
    std::vector<std::string> cells;
    for (const auto& v : values) cells.emplace_back(trim(v));
    for (const auto& [name, set] : kCsvFields)
      for (std::size_t c = 0; c < fields.size(); ++c)
        if (fields[c].first == name) set(d, Cell{cells[c], fields[c].second});
    s.devices.push_back(std::move(d));
  }
  finish(s, SourceKind::nvidia_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
