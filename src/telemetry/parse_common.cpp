// What the parsers share: device bookkeeping, rocm-smi/hy-smi key names, topology matrices.
#include <algorithm>
#include <map>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

// "vram Total Memory (MiB):" -> "vram total memory (mib)"
std::string norm_key(std::string_view k) {
  std::string s = lower(trim(k));
  while (!s.empty() && (s.back() == ':' || s.back() == ' ')) s.pop_back();
  return s;
}

// The unit in a key's last parentheses: "vram total memory (mib)" -> "mib".
std::string key_unit(const std::string& key) {
  const auto open = key.rfind('('), close = key.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return "b";
  return key.substr(open + 1, close - open - 1);
}

bool is_label(const std::string& t) {
  if (t.size() > 3 && starts_with(t, "GPU") && std::all_of(t.begin() + 3, t.end(), ::isdigit)) return true;
  return normalize_bus_id(t).has_value() && contains(t, ":");
}

std::string matrix_title(const std::string& line) {
  std::string t(trim(line));
  t.erase(std::remove(t.begin(), t.end(), '='), t.end());
  t = std::string(trim(t));
  if (!t.empty() && t.back() == ':') t.pop_back();
  return t;
}

}  // namespace

std::string mig_warning(int gpu, int mig_devices) {
  return "nvidia-smi: GPU " + std::to_string(gpu) + " has MIG on with " + std::to_string(mig_devices) +
         " MIG devices; its utilization reads N/A and its memory is shared among them";
}

std::string stray_line(std::string_view tool, std::string_view line) {
  return std::string("text beside the ") + std::string(tool) + " output: " + std::string(trim(line));
}

DeviceState& device_at(std::vector<DeviceState>& devices, int index) {
  for (auto& d : devices)
    if (d.index == index) return d;
  devices.push_back(DeviceState{});
  devices.back().index = index;
  return devices.back();
}

void finish(Snapshot& s, SourceKind source) {
  for (auto& d : s.devices) {
    stamp_sources(d, source);
    derive_figures(d);
  }
}

bool smi_pairs_look_hygon(const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [k, v] : pairs) {
    const std::string key = norm_key(k);
    if (starts_with(key, "dcu use") || starts_with(key, "hcu use")) return true;
    if (key == "card vendor" && vendor_from_text(v) == Vendor::hygon) return true;
  }
  return false;
}

void apply_smi_pairs(DeviceState& d, const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::map<std::string, std::string> kv;  // normalised key -> the first value given
  for (const auto& [k, v] : pairs) kv.emplace(norm_key(k), std::string(trim(v)));
  const auto get = [&](std::string_view key) -> std::optional<std::string> {
    auto it = kv.find(std::string(key));
    if (it == kv.end()) return std::nullopt;
    return text_value(it->second);
  };
  if (!d.name) d.name = get("device name") ? get("device name") : get("card series");
  if (auto v = get("card vendor")) d.vendor = vendor_from_text(*v);
  if (auto v = get("device id") ? get("device id") : get("gpu id")) d.device_id = pci_id(*v);
  if (auto v = get("serial number") ? get("serial number") : get("sn")) d.serial = v;
  if (auto v = get("unique id")) d.uuid = v;
  if (auto v = get("pci bus")) d.bus_id = normalize_bus_id(*v);
  if (auto v = get("(topology) numa node")) d.numa_node = parse_whole(*v);
  if (auto v = get("driver version")) d.driver_version = v;
  if (auto v = get("gfx version")) d.arch = decode_rocm_smi_gfx_version(*v);
  for (const char* sensor : {"edge", "junction", "core", "mem", "memory"}) {
    if (d.temperature_c) break;
    if (auto v = get(std::string("temperature (sensor ") + sensor + ") (c)")) d.temperature_c = parse_double(*v);
  }
  for (const char* key : {"average graphics package power (w)", "current socket graphics package power (w)"})
    if (!d.power_w)
      if (auto v = get(key)) d.power_w = parse_double(*v);
  if (auto v = get("max graphics package power (w)")) d.power_cap_w = parse_double(*v);
  for (const char* key : {"gpu use (%)", "dcu use (%)", "hcu use (%)"})
    if (!d.busy_percent)
      if (auto v = get(key)) d.busy_percent = parse_double(*v);
  if (auto v = get("sclk clock speed")) d.sclk_mhz = parse_whole(*v);
  if (auto v = get("mclk clock speed")) d.mclk_mhz = parse_whole(*v);
  // rocm-smi --json -c: "sclk clock level": "2 (2100Mhz)": the level, then the clock in brackets.
  const auto level_clock = [](const std::string& v) -> std::optional<std::int64_t> {
    const auto open = v.find('(');
    return open == std::string::npos ? std::nullopt : parse_whole(v.substr(open + 1));
  };
  if (!d.sclk_mhz)
    if (auto v = get("sclk clock level")) d.sclk_mhz = level_clock(*v);
  if (!d.mclk_mhz)
    if (auto v = get("mclk clock level")) d.mclk_mhz = level_clock(*v);
  for (const char* key : {"gpu memory allocated (vram%)", "gpu memory use (%)", "gpu memory usage (%)"})
    if (!d.memory_used_percent)
      if (auto v = get(key)) d.memory_used_percent = parse_double(*v);
  const auto range_max = [](const std::string& r) { return parse_whole(split(r, '-').back()); };
  if (auto v = get("valid sclk range")) d.sclk_max_mhz = range_max(*v);
  if (auto v = get("valid mclk range")) d.mclk_max_mhz = range_max(*v);
  for (const auto& [key, value] : kv) {
    if (!contains(key, "vram") || !contains(key, "total")) continue;
    const std::string unit = key_unit(key);
    if (contains(key, "used"))
      d.memory_used_bytes = parse_bytes(value, unit);
    else
      d.memory_total_bytes = parse_bytes(value, unit);
  }
  if (auto v = get("available memory size (mib)")) d.memory_available_bytes = parse_bytes(*v, "MiB");
  if (!d.vendor && d.name) d.vendor = vendor_from_text(*d.name);
}

std::vector<Matrix> find_matrices(const std::vector<std::string>& lines) {
  std::vector<Matrix> out;
  std::string title;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto labels = split_ws(lines[i]);
    const bool header = !labels.empty() && std::all_of(labels.begin(), labels.end(), is_label);
    if (!header) {
      if (!trim(lines[i]).empty()) title = matrix_title(lines[i]);
      continue;
    }
    Matrix m;
    m.title = title;
    m.labels = labels;
    std::size_t r = i + 1;
    for (; r < lines.size() && m.cells.size() < labels.size(); ++r) {
      auto row = split_ws(lines[r]);
      if (row.empty() || row[0] != labels[m.cells.size()]) break;
      row.erase(row.begin());
      row.resize(labels.size());
      m.cells.push_back(std::move(row));
    }
    if (!m.cells.empty()) out.push_back(std::move(m));
    i = r - 1;
  }
  return out;
}

void add_matrix_links(Topology& topo, const std::vector<Matrix>& matrices) {
  for (const auto& m : matrices) {
    const std::string t = lower(m.title);
    for (std::size_t r = 0; r < m.cells.size(); ++r) {
      for (std::size_t c = r + 1; c < m.labels.size(); ++c) {
        const std::string a = "GPU" + std::to_string(r), b = "GPU" + std::to_string(c);
        auto it =
            std::find_if(topo.links.begin(), topo.links.end(), [&](const TopoLink& l) { return l.a == a && l.b == b; });
        if (it == topo.links.end()) {
          topo.links.push_back(TopoLink{a, b, {}, {}, {}, {}, {}});
          it = topo.links.end() - 1;
        }
        const std::string& v = m.cells[r][c];
        if (contains(t, "weight"))
          it->weight = parse_whole(v);
        else if (contains(t, "hops"))
          it->hops = parse_whole(v);
        else if (contains(t, "link type"))
          it->type = text_value(v);
        else if (!v.empty()) {
          std::string key = contains(t, "access")           ? "access"
                            : contains(t, "numa bw")        ? "numa_bandwidth"
                            : contains(t, "coheran")        ? "cache_coherency"
                            : contains(t, "atomic")         ? "atomics"
                            : contains(t, "bi-directional") ? "bi_directional"
                            : contains(t, "dma")            ? "dma"
                                                            : lower(m.title);
          it->attributes.emplace_back(std::move(key), v);
        }
      }
    }
  }
}

}  // namespace dcukit::telemetry::parse
