#include "stress/thresholds.h"

#include <nlohmann/json.hpp>

#include "util/json_text.h"

namespace dcukit::generated {
extern const std::string_view kStressJson;
}  // namespace dcukit::generated

namespace dcukit::stress {
namespace {

std::optional<Figure> figure_of(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  Figure f;
  util::read_at(j, "expected", f.expected);
  util::read_at(j, "floor", f.floor);
  util::read_at(j, "source", f.source);
  return f;
}

std::vector<SkuThresholds> parse() {
  std::vector<SkuThresholds> out;
  const auto doc = util::parse_json(generated::kStressJson);
  for (const auto& s : doc.value("skus", nlohmann::json::array())) {
    SkuThresholds t;
    util::read_at(s, "key", t.key);
    util::read_at(s, "pci_ids", t.pci_ids);
    if (s.contains("gemm")) {
      t.gemm = figure_of(s["gemm"]);
      t.gemm_precision = device::parse_precision(util::string_at(s["gemm"], "precision"));
      util::read_at(s["gemm"], "n", t.gemm_n);
    }
    if (s.contains("hbm")) t.hbm = figure_of(s["hbm"]);
    if (s.contains("power")) {
      double ratio = 0;
      util::read_at(s["power"], "min_ratio", ratio);
      if (ratio > 0) t.power_min_ratio = ratio;
      util::read_at(s["power"], "source", t.power_source);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

const std::vector<SkuThresholds>& all_skus() {
  static const std::vector<SkuThresholds> k = parse();
  return k;
}

const SkuThresholds* find_sku(const std::string& pci_id, const std::string& spec_key) {
  for (const auto& s : all_skus())
    for (const auto& id : s.pci_ids)
      if (!pci_id.empty() && id == pci_id) return &s;
  for (const auto& s : all_skus())
    if (!spec_key.empty() && s.key == spec_key) return &s;
  return nullptr;
}

}  // namespace dcukit::stress
