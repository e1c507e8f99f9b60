#include "core/peaks.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/units.h"
#include "util/regex.h"

namespace dcukit::generated {
extern const std::string_view kPeaksJson;
}

namespace dcukit::core {
namespace {

using nlohmann::json;

/// What separates the words of a key or a name ("h200-sxm", "Hygon BW1000", "k100_ai").
bool separates_words(char c) {
  return c == ' ' || c == '-' || c == '_';
}

std::string normalise(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!separates_words(c)) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Whether `want` (normalised) is the first words of `key` or the last words of `name`: "h200" is
/// the first word of "h200-sxm" and "bw1000" the last of "Hygon BW1000", but "h20" is neither.
bool names_words(std::string_view key_or_name, std::string_view want, bool from_end) {
  std::vector<std::string> words;
  std::string word;
  for (char c : key_or_name) {
    if (separates_words(c)) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!word.empty()) words.push_back(word);
  std::string joined;
  for (std::size_t n = 0; n < words.size(); ++n) {
    joined = from_end ? words[words.size() - 1 - n] + joined : joined + words[n];
    if (joined == want) return true;
  }
  return false;
}

struct SupportName {
  Support support;
  std::string_view name;
};
constexpr SupportName kSupportNames[] = {{Support::unknown, "unknown"}, {Support::yes, "yes"}, {Support::no, "no"}};

/// supports.<name> of a device: {"value": "yes"|"no"|"unknown", "source", "note", "assume",
/// "assume_source"}. Absent is unknown. A yes or no without a source is refused (a figure
/// nobody can trace is worse than none), as is an assume without its source.
Capability parse_capability(const json& supports, const char* name, const std::string& key) {
  Capability c;
  auto it = supports.find(name);
  if (it == supports.end()) return c;
  const auto& v = *it;
  auto support = [&](const char* field) {
    const std::string text = v.at(field).get<std::string>();
    auto parsed = parse_support(text);
    if (!parsed)
      throw std::runtime_error(fmt::format("{}: supports.{}.{} is '{}'; write yes, no or unknown", key, name, field, text));
    return *parsed;
  };
  c.value = support("value");
  c.source = v.value("source", "");
  c.note = v.value("note", "");
  if (v.contains("assume")) c.assume = support("assume");
  c.assume_source = v.value("assume_source", "");
  if (c.value != Support::unknown && c.source.empty())
    throw std::runtime_error(fmt::format("{}: supports.{} says {} without a source", key, name, to_string(c.value)));
  if (c.value != Support::unknown && c.assume != Support::unknown)
    throw std::runtime_error(fmt::format("{}: supports.{} is known; an assume applies to unknown only", key, name));
  if (c.assume != Support::unknown && c.assume_source.empty())
    throw std::runtime_error(fmt::format("{}: supports.{}.assume needs an assume_source", key, name));
  return c;
}

DeviceSpec parse_device(const json& d) {
  DeviceSpec s;
  s.key = d.at("key").get<std::string>();
  s.display_name = d.value("display_name", s.key);
  const std::string vendor = d.at("vendor").get<std::string>();
  const auto v = parse_vendor(vendor);
  if (!v || *v == Vendor::cpu)
    throw std::invalid_argument(fmt::format("device {}: vendor '{}' is not nvidia, amd or hygon", s.key, vendor));
  s.vendor = *v;
  s.arch = d.value("arch", "");
  s.name_patterns = d.value("names", std::vector<std::string>{});
  s.pci_ids = d.value("pci_ids", std::vector<std::string>{});
  s.memory_bytes = d.value("memory_bytes", std::uint64_t{0});
  s.source = d.value("source", "");
  if (d.contains("runtime_memory")) {
    const auto& rm = d["runtime_memory"];
    s.runtime_memory.value = rm.at("bytes").get<double>();
    s.runtime_memory.source = rm.value("source", "");
    s.runtime_memory.low_confidence = rm.value("low_confidence", false);
  }
  s.notes = d.value("notes", "");
  if (d.contains("host_link")) {
    s.pcie_gen = d["host_link"].value("pcie_gen", 0);
    s.pcie_width = d["host_link"].value("width", 0);
  }
  if (d.contains("board")) {
    s.nvls_board = d["board"].value("nvls", false);
    s.board_source = d["board"].value("source", "");
  }
  if (d.contains("supports")) {
    const auto& sup = d.at("supports");
    s.bf16 = parse_capability(sup, "bf16", s.key);
    s.fp8 = parse_capability(sup, "fp8", s.key);
    s.fp8_kv_cache = parse_capability(sup, "fp8_kv_cache", s.key);
  }
  const json peaks = d.value("peaks", json::object());
  for (const auto& [k, v] : peaks.items()) {
    PeakFigure f;
    f.source = s.source;
    if (v.is_number()) {
      f.value = v.get<double>();
    } else {
      f.value = v.at("value").get<double>();
      f.low_confidence = v.value("low_confidence", false);
      f.source = v.value("source", s.source);
    }
    s.peaks[k] = f;
  }
  for (const auto& p : s.name_patterns)
    if (util::Regex check(p, util::Regex::Case::insensitive); !check.ok())
      throw std::invalid_argument(fmt::format("device {}: name pattern '{}': {}", s.key, p, check.error()));
  return s;
}

} // namespace

std::string_view to_string(Support support) {
  for (const auto& s : kSupportNames)
    if (s.support == support) return s.name;
  return "unknown";
}

std::optional<Support> parse_support(std::string_view text) {
  for (const auto& s : kSupportNames)
    if (s.name == text) return s.support;
  return std::nullopt;
}

const PeakFigure* DeviceSpec::peak(std::string_view key) const {
  auto it = peaks.find(std::string(key));
  return it == peaks.end() || it->second.value <= 0 ? nullptr : &it->second;
}

const PeakTable& PeakTable::builtin() {
  static const PeakTable table = [] {
    auto r = parse(generated::kPeaksJson, "the built-in data/peaks.json");
    return r ? *r : PeakTable{};
  }();
  return table;
}

Result<PeakTable> PeakTable::parse(std::string_view text, std::string_view origin) {
  PeakTable t;
  try {
    const json doc = json::parse(text);
    for (const auto& d : doc.at("devices")) t.m_devices.push_back(parse_device(d));
  } catch (const std::exception& e) {
    return Error{fmt::format("{} is not a valid peaks file: {}", origin, e.what())};
  }
  return t;
}

const DeviceSpec* PeakTable::match(std::string_view name, std::string_view pci_id, std::string_view arch) const {
  if (!pci_id.empty()) {
    const std::string id = normalise(pci_id);
    for (const auto& d : m_devices)
      for (const auto& p : d.pci_ids)
        if (normalise(p) == id) return &d;
  }
  const std::string n(name);
  for (const auto& d : m_devices) {
    if (!arch.empty() && !d.arch.empty() && arch.substr(0, d.arch.size()) != d.arch) continue;
    for (const auto& p : d.name_patterns)
      if (util::Regex(p, util::Regex::Case::insensitive).search(n)) return &d;
  }
  return nullptr;
}

const DeviceSpec* PeakTable::find(std::string_view key_or_name) const {
  const std::string want = normalise(key_or_name);
  if (want.empty()) return nullptr;
  for (const auto& d : m_devices)
    if (normalise(d.key) == want || normalise(d.display_name) == want) return &d;
  // "BW1000" -> "Hygon BW1000"; "H200" -> "h200-sxm": a unique key's first words or name's last words.
  const DeviceSpec* found = nullptr;
  for (const auto& d : m_devices) {
    const bool hit = names_words(d.key, want, false) || names_words(d.display_name, want, true);
    if (!hit) continue;
    if (found) return nullptr;
    found = &d;
  }
  return found;
}

Result<std::map<std::string, double>> parse_peak_overrides(std::string_view text) {
  static const std::vector<std::string> kKeys = {"fp64", "fp64_vector", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "hbm", "pcie"};
  std::map<std::string, double> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      return Error{fmt::format("--peak item '{}' needs the form KEY=VALUE, such as fp16=480e12", item)};
    const std::string key(item.substr(0, eq));
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end())
      return Error{fmt::format("--peak key '{}' is unknown: use one of {}", key, fmt::join(kKeys, ", "))};
    auto v = parse_number(item.substr(eq + 1));
    if (!v) return Error{fmt::format("--peak {}: {}", key, v.error().message)};
    if (*v <= 0) return Error{fmt::format("--peak {} must be positive", key)};
    out[key] = *v;
    if (end == text.size()) break;
  }
  return out;
}

double pcie_bytes_per_second(int gen, int width) {
  // Per-lane rates after encoding overhead, per direction.
  double lane = 0;
  switch (gen) {
    case 1: lane = 2.5e9 * 0.8 / 8; break;
    case 2: lane = 5e9 * 0.8 / 8; break;
    case 3: lane = 8e9 * 128 / 130 / 8; break;
    case 4: lane = 16e9 * 128 / 130 / 8; break;
    case 5: lane = 32e9 * 128 / 130 / 8; break;
    case 6: lane = 64e9 * 242 / 256 / 8; break;
    default: return 0;
  }
  return lane * width;
}

int pcie_gen_from_speed(std::string_view speed) {
  double gts = 0;
  try {
    gts = std::stod(std::string(speed));
  } catch (...) {
    return 0;
  }
  if (gts >= 60) return 6;
  if (gts >= 30) return 5;
  if (gts >= 15) return 4;
  if (gts >= 7.5) return 3;
  if (gts >= 4.5) return 2;
  if (gts >= 2) return 1;
  return 0;
}

} // namespace dcukit::core
