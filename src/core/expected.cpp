#include "core/expected.h"

#include <fmt/format.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "util/json_text.h"
#include "util/names.h"

namespace dcukit::generated {
extern const std::string_view kExpectedJson;
}  // namespace dcukit::generated

namespace dcukit::core {
namespace {

constexpr util::Name<Placement> kPlacements[] = {{Placement::no_reference, "no reference"},
                                                 {Placement::normal, "normal"},
                                                 {Placement::low, "low"},
                                                 {Placement::high, "high"}};

struct ExpectedData {
  double high_margin = 0.15;
  std::vector<ExpectedSku> skus;
};

ExpectedData parse() {
  ExpectedData out;
  const auto doc = util::parse_json(generated::kExpectedJson);
  util::read_at(doc, "high_margin", out.high_margin);
  for (const auto& s : doc.value("skus", nlohmann::json::array())) {
    ExpectedSku sku;
    util::read_at(s, "key", sku.key);
    util::read_at(s, "pci_ids", sku.pci_ids);
    for (const auto& m : s.value("metrics", nlohmann::json::array())) {
      ExpectedMetric metric;
      util::read_at(m, "benchmark", metric.benchmark);
      if (m.contains("match") && m["match"].is_object())
        for (const auto& [k, v] : m["match"].items())
          if (v.is_string()) metric.match[k] = v.get<std::string>();
      if (m.contains("at_least") && m["at_least"].is_object())
        for (const auto& [k, v] : m["at_least"].items())
          if (v.is_number()) metric.at_least[k] = v.get<double>();
      util::read_at(m, "expected", metric.expected);
      util::read_at(m, "floor", metric.floor);
      util::read_at(m, "source", metric.source);
      if (m.contains("high_margin") && m["high_margin"].is_number()) metric.high_margin = m["high_margin"].get<double>();
      sku.metrics.push_back(std::move(metric));
    }
    out.skus.push_back(std::move(sku));
  }
  return out;
}

const ExpectedData& data() {
  static const ExpectedData d = parse();
  return d;
}

bool applies(const ExpectedMetric& m, std::string_view benchmark, const std::map<std::string, std::string>& params) {
  if (m.benchmark != benchmark) return false;
  for (const auto& [k, v] : m.match) {
    const auto it = params.find(k);
    if (it == params.end() || it->second != v) return false;
  }
  for (const auto& [k, least] : m.at_least) {
    const auto it = params.find(k);
    if (it == params.end()) return false;
    char* end = nullptr;
    const double v = std::strtod(it->second.c_str(), &end);
    if (end == it->second.c_str() || v < least) return false;
  }
  return true;
}

}  // namespace

std::string_view to_string(Placement p) { return util::name_of(kPlacements, p); }

std::optional<Placement> parse_placement(std::string_view text) { return util::value_of(kPlacements, text); }

std::string placement_word(Placement p) { return p == Placement::low ? "LOW" : std::string(to_string(p)); }

std::string placement_text(Placement p, double ratio) {
  return p == Placement::no_reference ? "-" : fmt::format("{} {:.2f}x", placement_word(p), ratio);
}

Placement place_figure(double value, double expected, double floor, double high_margin) {
  if (expected <= 0) return Placement::no_reference;
  if (value < floor) return Placement::low;
  if (value > expected * (1 + high_margin)) return Placement::high;
  return Placement::normal;
}

Placement place_figure(double value, double expected, double floor) {
  return place_figure(value, expected, floor, data().high_margin);
}

const ExpectedSku* find_expected_sku(std::string_view pci_id, std::string_view spec_key) {
  for (const auto& s : data().skus)
    for (const auto& id : s.pci_ids)
      if (!pci_id.empty() && id == pci_id) return &s;
  for (const auto& s : data().skus)
    if (!spec_key.empty() && s.key == spec_key) return &s;
  return nullptr;
}

Placed place(std::string_view pci_id, std::string_view spec_key, std::string_view benchmark,
             const std::map<std::string, std::string>& params, double value) {
  Placed out;
  out.value = value;
  const ExpectedSku* sku = find_expected_sku(pci_id, spec_key);
  if (!sku) {
    out.source = "no reference for this card (data/expected.json knows its SKU by PCI id or peak-data key)";
    return out;
  }
  out.sku = sku->key;
  for (const auto& m : sku->metrics) {
    if (!applies(m, benchmark, params)) continue;
    out.expected = m.expected;
    out.floor = m.floor;
    out.source = m.source;
    out.placement = place_figure(value, m.expected, m.floor, m.high_margin.value_or(data().high_margin));
    return out;
  }
  out.source = fmt::format("no reference for this case on {} (data/expected.json)", sku->key);
  return out;
}

std::vector<std::string> likely_causes(std::string_view benchmark, const RunFacts& f) {
  std::vector<std::string> out;
  const bool host_link = benchmark == "transfer" || benchmark == "pcie";
  if (host_link && f.pcie_gen > 0 && f.pcie_gen_max > 0 &&
      (f.pcie_gen < f.pcie_gen_max || (f.pcie_width > 0 && f.pcie_width < f.pcie_width_max)))
    out.push_back(fmt::format("the PCIe link trained at gen {} x{}, below the card's gen {} x{}: reseat the card or "
                              "check the slot and BIOS link settings",
                              f.pcie_gen, f.pcie_width, f.pcie_gen_max, f.pcie_width_max));
  if (host_link && f.device_numa >= 0 && f.memory_numa >= 0 && f.device_numa != f.memory_numa)
    out.push_back(fmt::format("host memory on NUMA node {}, the card on node {}: run under numactl --cpunodebind={} "
                              "--membind={}",
                              f.memory_numa, f.device_numa, f.device_numa, f.device_numa));
  if (!host_link && f.clock_mhz && f.clock_max_mhz && *f.clock_max_mhz > 0 && *f.clock_mhz < 0.9 * *f.clock_max_mhz)
    out.push_back(fmt::format("clocks at {:.0f} of {:.0f} MHz", *f.clock_mhz, *f.clock_max_mhz));
  if (!f.throttle_reasons.empty()) out.push_back("throttled: " + f.throttle_reasons);
  if (f.other_processes > 0)
    out.push_back(fmt::format("{} other process(es) on the card: measure on an idle card", f.other_processes));
  if (out.empty())
    out.push_back(
        "nothing this run recorded explains it: watch `dcukit telemetry --watch 1` while it runs (clocks, power, "
        "throttle reasons, other processes) and check the link and NUMA placement with `dcukit doctor`");
  return out;
}

const std::vector<ExpectedSku>& all_expected() { return data().skus; }

}  // namespace dcukit::core
