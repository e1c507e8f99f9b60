// rocm-smi --json and hy-smi --json: {"card0": {"Card Series": "K100_AI", ...}, "system": {...}},
// and --csv, whose columns are the same keys.
// hy-smi's is often not valid JSON (missing commas, "": "" repeated, stderr lines around it, a
// paste cut short); the lenient reader takes what is there and each fault becomes a warning.
#include <fmt/format.h>

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

namespace {

/// One CSV record: commas outside double quotes separate, quotes are taken off.
std::vector<std::string> csv_cells(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (const char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      out.emplace_back();
    else
      out.back() += c;
  }
  for (auto& c : out) c = std::string(trim(c));
  return out;
}

}  // namespace

// rocm-smi --csv (and hy-smi --csv): "device,<the --json keys>" then a "cardN,..." row a device,
// and a "system,..." block for driver-wide values; the keys are those of --json.
Snapshot smi_csv(const Capture& cap) {
  Snapshot s;
  std::vector<std::string> header;
  bool hygon = false;
  std::optional<std::string> driver;
  for (const auto& line : cap.lines) {
    if (trim(line).empty() || starts_with(line, "$ ")) continue;
    auto cells = csv_cells(line);
    const std::string first = lower(cells[0]);
    if (first == "device" || (first == "system" && header.empty())) {
      header = cells;
      continue;
    }
    if (header.empty()) {
      if (!starts_with(trim(line), "=")) s.warnings.push_back(stray_line("rocm-smi --csv", line));
      continue;
    }
    if (cells.size() != header.size())
      s.warnings.push_back(fmt::format("rocm-smi --csv: a row of {} cells under a header of {}: {}", cells.size(),
                                       header.size(), line));
    std::vector<std::pair<std::string, std::string>> pairs;
    for (std::size_t k = 1; k < cells.size() && k < header.size(); ++k) pairs.emplace_back(header[k], cells[k]);
    if (first == "system") {
      for (const auto& [k, v] : pairs)
        if (lower(k) == "driver version") driver = text_value(v);
      continue;
    }
    const auto idx = card_index(first);
    if (!idx) {
      s.warnings.push_back(stray_line("rocm-smi --csv", line));
      continue;
    }
    hygon = hygon || smi_pairs_look_hygon(pairs);
    apply_smi_pairs(device_at(s.devices, *idx), pairs);
  }
  for (auto& d : s.devices) {
    if (driver) d.driver_version = driver;
    if (hygon && !d.vendor) d.vendor = Vendor::hygon;
  }
  if (s.devices.empty()) s.warnings.push_back("rocm-smi --csv: no 'cardN' row found");
  finish(s, hygon ? SourceKind::hy_smi : SourceKind::rocm_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
