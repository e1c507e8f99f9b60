// rocm-smi --json and hy-smi --json: {"card0": {"Card Series": "K100_AI", ...}, "system": {...}}.
// hy-smi's is often not valid JSON (missing commas, "": "" repeated, stderr lines around it, a
// paste cut short); the lenient reader takes what is there and each fault becomes a warning.
#include "telemetry/lenient_json.h"
#include "telemetry/parsers.h"
#include "util/json_text.h"

namespace dcukit::telemetry::parse {
namespace {

using ojson = nlohmann::ordered_json;

std::string as_text(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return util::json_text(v);
}

std::optional<int> card_index(const std::string& key) {
  if (!starts_with(key, "card")) return std::nullopt;
  const std::string n = key.substr(4);
  if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoi(n);
}

}  // namespace

Snapshot smi_json(const Capture& cap) {
  Snapshot s;
  const LenientJson json = read_lenient_json(join_lines(cap.lines));
  std::vector<std::vector<std::pair<std::string, std::string>>> all;
  std::optional<std::string> driver;
  bool hygon = false;
  for (const auto& top : json.values) {
    if (!top.is_object()) continue;
    for (const auto& [key, obj] : top.items()) {
      if (!obj.is_object()) continue;
      std::vector<std::pair<std::string, std::string>> pairs;
      for (const auto& [k, v] : obj.items()) pairs.emplace_back(k, as_text(v));
      if (key == "system") {
        for (const auto& [k, v] : pairs)
          if (lower(k) == "driver version") driver = text_value(v);
        continue;
      }
      const auto idx = card_index(key);
      if (!idx) continue;
      hygon = hygon || smi_pairs_look_hygon(pairs);
      apply_smi_pairs(device_at(s.devices, *idx), pairs);
    }
  }
  const char* tool = hygon ? "hy-smi" : "rocm-smi";
  for (const auto& line : json.outside)
    if (!starts_with(line, "$ ") && !starts_with(line, "#")) s.warnings.push_back(stray_line(tool, line));
  for (const auto& p : json.problems) s.warnings.push_back(std::string(tool) + " --json is not valid JSON: " + p);
  for (auto& d : s.devices) {
    if (driver) d.driver_version = driver;
    if (hygon && !d.vendor) d.vendor = Vendor::hygon;
  }
  finish(s, hygon ? SourceKind::hy_smi : SourceKind::rocm_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
