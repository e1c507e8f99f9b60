// amd-smi: static and metric, as JSON ([{"gpu": 0, "asic": {...}}], values either plain or
// {"value": 10, "unit": "W"}) or as text ("GPU: 0" then indented "KEY: value" lines, units in the
// values: "550 W", "32 GT/s", "96434 MB"). The text is read into the same tree as the JSON (keys
// lowered) so that one extractor serves both. amd-smi's MB are MiB.
#include <algorithm>

#include "telemetry/lenient_json.h"
#include "telemetry/parsers.h"
#include "util/json_text.h"

namespace dcukit::telemetry::parse {
namespace {

using ojson = nlohmann::ordered_json;

const ojson* at(const ojson& o, std::initializer_list<const char*> path) {
  const ojson* cur = &o;
  for (const char* k : path) {
    if (!cur->is_object() || !cur->contains(k)) return nullptr;
    cur = &(*cur)[k];
  }
  return cur;
}

std::optional<Quantity> qty(const ojson* v) {
  if (!v) return std::nullopt;
  if (v->is_object()) {
    if (!v->contains("value")) return std::nullopt;
    auto q = qty(&(*v)["value"]);
    if (q && v->contains("unit") && (*v)["unit"].is_string()) q->unit = (*v)["unit"].get<std::string>();
    return q;
  }
  if (v->is_number()) return Quantity{v->get<double>(), ""};
  if (v->is_string()) return parse_quantity(v->get<std::string>());
  return std::nullopt;
}

std::optional<std::string> txt(const ojson* v) {
  if (!v) return std::nullopt;
  if (v->is_string()) {
    auto t = text_value(v->get<std::string>());
    if (t && (contains(*t, "redacted") || contains(*t, "XXXX"))) return std::nullopt;  // masked by the author
    return t;
  }
  if (v->is_number()) return util::json_text(*v);
  return std::nullopt;
}

std::optional<std::int64_t> whole(const std::optional<Quantity>& q) {
  return q ? whole_number(q->value) : std::nullopt;
}

std::optional<std::int64_t> gen_of(const std::optional<Quantity>& q) {
  return q ? pcie_gen_from_gts(q->value) : std::nullopt;
}

// A static CLOCK block: {"current_level": 1, "frequency_levels": {"level_0": "700 MHz", ...}}.
void clock_levels(const ojson* c, std::optional<std::int64_t>& current, std::optional<std::int64_t>& max) {
  const ojson* levels = c ? at(*c, {"frequency_levels"}) : nullptr;
  if (!levels || !levels->is_object()) return;
  const auto cur = whole(qty(at(*c, {"current_level"})));
  std::int64_t i = 0;
  for (const auto& [k, v] : levels->items()) {
    const auto mhz = whole(qty(&v));
    if (mhz && (!max || *mhz > *max)) max = mhz;
    if (cur && i == *cur) current = mhz;
    ++i;
  }
}

void gpu_figures(DeviceState& d, const ojson& g) {
  d.name = txt(at(g, {"asic", "market_name"}));
  if (!d.name) d.name = txt(at(g, {"board", "product_name"}));
  if (auto v = txt(at(g, {"asic", "vendor_name"}))) d.vendor = vendor_from_text(*v);
  if (auto v = txt(at(g, {"asic", "device_id"}))) d.device_id = pci_id(*v);
  d.serial = txt(at(g, {"asic", "asic_serial"}));
  if (!d.serial) d.serial = txt(at(g, {"board", "product_serial"}));
  d.arch = txt(at(g, {"asic", "target_graphics_version"}));
  d.compute_units = whole(qty(at(g, {"asic", "num_compute_units"})));
  if (auto v = txt(at(g, {"bus", "bdf"}))) d.bus_id = normalize_bus_id(*v);
  d.pcie_width_max = whole(qty(at(g, {"bus", "max_pcie_width"})));
  d.pcie_gen_max = gen_of(qty(at(g, {"bus", "max_pcie_speed"})));
  if (!d.pcie_gen_max)
    if (auto v = txt(at(g, {"bus", "pcie_interface_version"}))) d.pcie_gen_max = parse_whole(last_word(*v));
  d.driver_version = txt(at(g, {"driver", "version"}));
  auto cap = qty(at(g, {"limit", "socket_power"}));
  if (!cap) cap = qty(at(g, {"limit", "max_power"}));
  if (cap) d.power_cap_w = cap->value;
  d.numa_node = whole(qty(at(g, {"numa", "node"})));
  auto total = qty(at(g, {"vram", "size"}));
  if (!total) total = qty(at(g, {"mem_usage", "total_vram"}));
  if (total) d.memory_total_bytes = to_bytes(total->value, total->unit.empty() ? "MB" : total->unit);
  if (auto used = qty(at(g, {"mem_usage", "used_vram"})))
    d.memory_used_bytes = to_bytes(used->value, used->unit.empty() ? "MB" : used->unit);
  clock_levels(at(g, {"clock", "sys"}), d.sclk_mhz, d.sclk_max_mhz);
  clock_levels(at(g, {"clock", "mem"}), d.mclk_mhz, d.mclk_max_mhz);
  if (auto v = whole(qty(at(g, {"clock", "gfx_0", "clk"})))) d.sclk_mhz = v;
  if (auto v = whole(qty(at(g, {"clock", "gfx_0", "max_clk"})))) d.sclk_max_mhz = v;
  if (auto v = whole(qty(at(g, {"clock", "mem_0", "clk"})))) d.mclk_mhz = v;
  if (auto v = whole(qty(at(g, {"clock", "mem_0", "max_clk"})))) d.mclk_max_mhz = v;
  auto temp = qty(at(g, {"temperature", "edge"}));
  if (!temp) temp = qty(at(g, {"temperature", "hotspot"}));
  if (temp) d.temperature_c = temp->value;
  if (auto p = qty(at(g, {"power", "socket_power"}))) d.power_w = p->value;
  if (auto u = qty(at(g, {"usage", "gfx_activity"}))) d.busy_percent = u->value;
  d.pcie_width = whole(qty(at(g, {"pcie", "width"})));
  d.pcie_gen = gen_of(qty(at(g, {"pcie", "speed"})));
  d.ecc_corrected = whole(qty(at(g, {"ecc", "total_correctable_count"})));
  d.ecc_uncorrected = whole(qty(at(g, {"ecc", "total_uncorrectable_count"})));
  if (!d.vendor) d.vendor = d.name ? vendor_from_text(*d.name) : std::nullopt;
  if (!d.vendor) d.vendor = Vendor::amd;
}

// amd-smi topology --json: {"gpu": 0, "link_type": {"gpu_1": "PCIE"}, "weight": {...}, ...}.
void topology_links(Topology& topo, int gpu, const ojson& g) {
  for (const char* table : {"link_accessibility", "weight", "hops", "link_type", "numa_bandwidth"}) {
    const ojson* t = at(g, {table});
    if (!t || !t->is_object()) continue;
    for (const auto& [peer, v] : t->items()) {
      const auto other = parse_whole(split(peer, '_').back());
      if (!other || *other <= gpu) continue;
      const std::string a = "GPU" + std::to_string(gpu), b = "GPU" + std::to_string(*other);
      auto it = std::find_if(topo.links.begin(), topo.links.end(), [&](auto& l) { return l.a == a && l.b == b; });
      if (it == topo.links.end()) it = topo.links.insert(topo.links.end(), TopoLink{a, b, {}, {}, {}, {}, {}});
      const std::string name = table;
      if (name == "weight")
        it->weight = whole(qty(&v));
      else if (name == "hops")
        it->hops = whole(qty(&v));
      else if (name == "link_type")
        it->type = txt(&v);
      else if (auto s = txt(&v))
        it->attributes.emplace_back(name == "link_accessibility" ? "access" : name, *s);
    }
  }
}

bool is_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ' ';
}

// amd-smi's text: "GPU: 0" at the margin, then "KEY: value" / "KEY:" nested by indentation.
std::vector<std::pair<int, ojson>> read_text_tree(const std::vector<std::string>& lines) {
  std::vector<std::pair<int, ojson>> gpus;
  std::vector<std::pair<std::size_t, ojson*>> stack;  // indentation, the object at that depth
  ojson* last_leaf_parent = nullptr;
  std::string last_key;
  for (const auto& raw : lines) {
    const std::string_view l = trim(raw);
    if (l.empty() || l == "...") continue;
    const std::size_t indent = raw.find_first_not_of(' ');
    const auto colon = l.find(':');
    const bool keyed = colon != std::string_view::npos && colon > 0 &&
                       std::all_of(l.begin(), l.begin() + colon, is_key_char) &&
                       (colon + 1 == l.size() || l[colon + 1] == ' ');
    if (!keyed) {  // a wrapped array continues the previous value
      if (last_leaf_parent && last_leaf_parent->contains(last_key))
        (*last_leaf_parent)[last_key] = (*last_leaf_parent)[last_key].get<std::string>() + " " + std::string(l);
      continue;
    }
    std::string key = lower(trim(l.substr(0, colon)));
    std::replace(key.begin(), key.end(), ' ', '_');
    const std::string value(trim(l.substr(colon + 1)));
    if (indent == 0) {
      stack.clear();
      last_leaf_parent = nullptr;
      if (key != "gpu") continue;  // CPU: 0 and others are not devices
      gpus.emplace_back(static_cast<int>(parse_whole(value).value_or(static_cast<std::int64_t>(gpus.size()))),
                        ojson::object());
      stack.emplace_back(0, &gpus.back().second);
      continue;
    }
    if (stack.empty()) continue;
    while (stack.size() > 1 && stack.back().first >= indent) stack.pop_back();
    ojson& parent = *stack.back().second;
    if (value.empty()) {
      last_leaf_parent = nullptr;  // inserting may move parent's members
      parent[key] = ojson::object();
      stack.emplace_back(indent, &parent[key]);
    } else {
      parent[key] = value;
      last_leaf_parent = &parent;
      last_key = key;
    }
  }
  return gpus;
}

}  // namespace

Snapshot amd_smi_json(const Capture& cap) {
  Snapshot s;
  const LenientJson json = read_lenient_json(join_lines(cap.lines));
  for (const auto& top : json.values) {
    // A list of GPUs, one GPU, or (newer amd-smi) {"gpu_data": [...]}.
    const auto items = top.is_array()                                           ? top
                       : top.contains("gpu_data") && top["gpu_data"].is_array() ? top["gpu_data"]
                                                                                : ojson::array({top});
    for (const auto& g : items) {
      if (!g.is_object() || !g.contains("gpu")) continue;
      const int idx = static_cast<int>(whole(qty(&g["gpu"])).value_or(static_cast<std::int64_t>(s.devices.size())));
      gpu_figures(device_at(s.devices, idx), g);
      topology_links(s.topology, idx, g);
    }
  }
  for (const auto& p : json.problems) s.warnings.push_back("amd-smi --json: " + p);
  for (const auto& line : json.outside) s.warnings.push_back(stray_line("amd-smi", line));
  finish(s, SourceKind::amd_smi);
  return s;
}

Snapshot amd_smi_text(const Capture& cap) {
  Snapshot s;
  auto gpus = read_text_tree(cap.lines);
  for (auto& [idx, tree] : gpus) gpu_figures(device_at(s.devices, idx), tree);
  if (s.devices.empty()) s.warnings.push_back("amd-smi: no 'GPU: N' block found");
  finish(s, SourceKind::amd_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
