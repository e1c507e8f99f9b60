// nvidia-smi -q: "GPU 00000000:00:09.0" blocks of "Key : Value" lines nested by indentation.
// Read into a tree, then the figures are taken by path; the names changed across drivers
// ("Power Readings/Power Draw" before 535, "GPU Power Readings/Average Power Draw" after; ECC
// "Single Bit/Double Bit" before Hopper, "SRAM/DRAM" after), and both spellings are read.
#include <fmt/format.h>

#include <memory>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

struct Node {
  std::string key, value;
  bool has_value = false;
  std::vector<std::unique_ptr<Node>> children;

  const Node* child(std::string_view k) const {
    for (const auto& c : children)
      if (c->key == k) return c.get();
    return nullptr;
  }
  const Node* path(std::initializer_list<std::string_view> keys) const {
    const Node* n = this;
    for (auto k : keys) {
      n = n->child(k);
      if (!n) return nullptr;
    }
    return n;
  }
  std::optional<std::string> text(std::initializer_list<std::string_view> keys) const {
    const Node* n = path(keys);
    return n && n->has_value ? text_value(n->value) : std::nullopt;
  }
};

std::unique_ptr<Node> read_tree(const std::vector<std::string>& lines) {
  auto root = std::make_unique<Node>();
  std::vector<std::pair<std::size_t, Node*>> stack{{0, root.get()}};
  for (const auto& raw : lines) {
    if (trim(raw).empty() || starts_with(trim(raw), "====")) continue;
    const std::size_t indent = raw.find_first_not_of(' ') + 1;  // +1: the root sits at 0
    while (stack.size() > 1 && stack.back().first >= indent) stack.pop_back();
    auto node = std::make_unique<Node>();
    const auto sep = raw.find(" : ");
    const auto bare_colon = raw.size() > 2 && raw.substr(raw.size() - 2) == " :";
    if (sep != std::string::npos) {
      node->key = std::string(trim(raw.substr(0, sep)));
      node->value = std::string(trim(raw.substr(sep + 3)));
      node->has_value = true;
    } else if (bare_colon) {
      node->key = std::string(trim(raw.substr(0, raw.size() - 2)));
      node->has_value = true;
    } else {
      node->key = std::string(trim(raw));
    }
    Node* n = node.get();
    stack.back().second->children.push_back(std::move(node));
    stack.emplace_back(indent, n);
  }
  return root;
}

std::optional<std::int64_t> sum(const Node* n, std::initializer_list<std::string_view> keys) {
  if (!n) return std::nullopt;
  std::optional<std::int64_t> total;
  for (auto k : keys) {
    if (auto v = n->text({k}); v && parse_whole(*v)) total = total.value_or(0) + *parse_whole(*v);
  }
  return total;
}

void gpu_figures(DeviceState& d, const Node& g, Snapshot& s) {
  d.vendor = Vendor::nvidia;
  if (g.key.size() > 4) d.bus_id = normalize_bus_id(g.key.substr(4));
  d.name = g.text({"Product Name"});
  d.serial = g.text({"Serial Number"});
  d.uuid = g.text({"GPU UUID"});
  if (auto v = g.text({"PCI", "Device Id"}))
    d.device_id = pci_id(v->substr(0, v->size() > 6 ? v->size() - 4 : v->size()));
  if (auto v = g.text({"PCI", "Bus Id"})) d.bus_id = normalize_bus_id(*v);
  const Node* link = g.path({"PCI", "GPU Link Info"});
  if (link) {
    d.pcie_gen = parse_whole(link->text({"PCIe Generation", "Current"}).value_or(""));
    d.pcie_gen_max = parse_whole(link->text({"PCIe Generation", "Max"}).value_or(""));
    d.pcie_width = parse_whole(link->text({"Link Width", "Current"}).value_or(""));
    d.pcie_width_max = parse_whole(link->text({"Link Width", "Max"}).value_or(""));
  }
  d.memory_total_bytes = parse_bytes(g.text({"FB Memory Usage", "Total"}).value_or(""), "MiB");
  d.memory_used_bytes = parse_bytes(g.text({"FB Memory Usage", "Used"}).value_or(""), "MiB");
  d.memory_available_bytes = parse_bytes(g.text({"FB Memory Usage", "Free"}).value_or(""), "MiB");
  d.busy_percent = parse_double(g.text({"Utilization", "GPU"}).value_or(""));
  d.temperature_c = parse_double(g.text({"Temperature", "GPU Current Temp"}).value_or(""));
  for (const char* section : {"GPU Power Readings", "Power Readings"}) {
    for (const char* k : {"Average Power Draw", "Power Draw"})
      if (!d.power_w) d.power_w = parse_double(g.text({section, k}).value_or(""));
    for (const char* k : {"Current Power Limit", "Enforced Power Limit", "Power Limit"})
      if (!d.power_cap_w) d.power_cap_w = parse_double(g.text({section, k}).value_or(""));
  }
  d.sclk_mhz = parse_whole(g.text({"Clocks", "SM"}).value_or(""));
  d.mclk_mhz = parse_whole(g.text({"Clocks", "Memory"}).value_or(""));
  d.sclk_max_mhz = parse_whole(g.text({"Max Clocks", "SM"}).value_or(""));
  d.mclk_max_mhz = parse_whole(g.text({"Max Clocks", "Memory"}).value_or(""));
  if (const Node* v = g.path({"ECC Errors", "Volatile"})) {
    d.ecc_corrected = sum(v, {"SRAM Correctable", "DRAM Correctable"});
    d.ecc_uncorrected =
        sum(v, {"SRAM Uncorrectable", "SRAM Uncorrectable Parity", "SRAM Uncorrectable SEC-DED", "DRAM Uncorrectable"});
    if (!d.ecc_corrected) d.ecc_corrected = sum(v->child("Single Bit"), {"Total"});
    if (!d.ecc_uncorrected) d.ecc_uncorrected = sum(v->child("Double Bit"), {"Total"});
  }
  if (const Node* p = g.child("Processes")) {
    d.processes.emplace();
    for (const auto& c : p->children) {
      if (c->key != "Process ID") continue;
      ProcessUse use;
      use.pid = parse_whole(c->value).value_or(0);
      use.name = c->text({"Name"});
      use.memory_bytes = parse_bytes(c->text({"Used GPU Memory"}).value_or(""), "MiB");
      d.processes->push_back(std::move(use));
    }
  }
  int mig = 0;
  for (const auto& c : g.children) mig += c->key == "MIG Device";
  if (mig > 0) s.warnings.push_back(mig_warning(d.index, mig));
}

}  // namespace

Snapshot nvidia_smi_q(const Capture& cap) {
  Snapshot s;
  const auto root = read_tree(cap.lines);
  const auto driver = root->text({"Driver Version"});
  int index = 0;
  for (const auto& c : root->children) {
    if (!starts_with(c->key, "GPU ") || c->has_value) continue;
    DeviceState& d = device_at(s.devices, index);
    d.index = index++;
    gpu_figures(d, *c, s);
    d.driver_version = driver;
  }
  if (s.devices.empty() && (root->child("Product Name") || root->child("FB Memory Usage"))) {
    // An excerpt of one GPU's section without its "GPU <bus id>" line: that one GPU, said.
    DeviceState& d = device_at(s.devices, 0);
    d.index = 0;
    gpu_figures(d, *root, s);
    d.driver_version = driver;
    s.warnings.push_back("nvidia-smi -q: an excerpt without its 'GPU <bus id>' line, read as one GPU");
  }
  if (auto attached = parse_whole(root->text({"Attached GPUs"}).value_or(""));
      attached && *attached != static_cast<std::int64_t>(s.devices.size()))
    s.warnings.push_back(fmt::format("nvidia-smi -q: 'Attached GPUs' says {}, the capture holds {} GPU blocks",
                                     *attached, s.devices.size()));
  if (s.devices.empty()) s.warnings.push_back("nvidia-smi -q: no 'GPU <bus id>' block found");
  finish(s, SourceKind::nvidia_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
