// The per-device line views of rocm-smi and hy-smi: "GPU[0] : Device Name: AMD Instinct MI300X"
// (-i, -u, --showmeminfo vram, --showproductname, --showtopo's NUMA part) and "HCU[0] : PCI Bus:
// 0000:05:00.0 --> SN: N/A" (--showbus, --showmemavailable, -a). hy-smi's --showtopo writes
// "Numa Node 0" without rocm-smi's colon. Matrices (weight, hops, link type) become topology.
#include <map>

#include "telemetry/parsers.h"

namespace dcukit::telemetry::parse {
namespace {

struct Tagged {
  std::string tag;  // GPU, DCU, HCU
  int index = 0;
  std::string rest;
};

std::optional<Tagged> tagged(std::string_view line) {
  line = trim(line);
  for (const char* tag : {"GPU[", "DCU[", "HCU["}) {
    if (!starts_with(line, tag)) continue;
    const auto close = line.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string idx(line.substr(4, close - 4));
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    std::string_view rest = trim(line.substr(close + 1));
    if (!starts_with(rest, ":")) return std::nullopt;
    return Tagged{std::string(tag, 3), std::stoi(idx), std::string(trim(rest.substr(1)))};
  }
  return std::nullopt;
}

// "Device Name: \t\tAMD" -> {"Device Name", "AMD"}; "(Topology) Numa Node 0" -> {"(Topology) Numa Node", "0"}.
std::pair<std::string, std::string> key_value(std::string_view s) {
  for (const char* topo : {"(Topology) Numa Node", "(Topology) Numa Affinity"}) {
    if (starts_with(s, topo)) {
      std::string_view v = trim(s.substr(std::string_view(topo).size()));
      if (starts_with(v, ":")) v = trim(v.substr(1));
      return {topo, std::string(v)};
    }
  }
  for (std::size_t i = 0; i + 1 <= s.size(); ++i) {
    if (s[i] != ':') continue;
    if (i + 1 == s.size()) return {std::string(trim(s.substr(0, i))), ""};
    if (s[i + 1] == ' ' || s[i + 1] == '\t')
      return {std::string(trim(s.substr(0, i))), std::string(trim(s.substr(i + 1)))};
  }
  return {std::string(trim(s)), ""};
}

// amd-smi version's line: "AMDSMI Tool: 25.4.2 | ... | amdgpu version: 6.10.5 | ...".
std::optional<std::string> amdgpu_version(std::string_view line) {
  for (auto& part : split(line, '|')) {
    auto [k, v] = key_value(trim(part));
    if (lower(k) == "amdgpu version") return text_value(v);
  }
  return std::nullopt;
}

}  // namespace

Snapshot smi_fields(const Capture& cap) {
  Snapshot s;
  std::map<int, std::vector<std::pair<std::string, std::string>>> pairs;
  std::string tag;
  std::optional<std::string> driver;
  bool seen_banner = false;
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    if (auto t = tagged(l)) {
      tag = t->tag;
      auto& p = pairs[t->index];
      device_at(s.devices, t->index);
      for (auto& seg : split(t->rest, '>')) {  // "PCI Bus: 0000:05:00.0 --> SN: N/A"
        std::string_view part = trim(seg);
        while (!part.empty() && part.back() == '-') part = trim(part.substr(0, part.size() - 1));
        if (!part.empty()) p.push_back(key_value(part));
      }
      continue;
    }
    if (starts_with(l, "=")) seen_banner = true;
    if (l.find_first_not_of('.') == std::string_view::npos) continue;  // "......": the author's elision
    if (contains(l, "amdgpu version:")) driver = amdgpu_version(l);
    if (starts_with(l, "WARNING") || starts_with(l, "Error") || starts_with(l, "Warning") ||
        (!seen_banner && !l.empty() && !starts_with(l, "$ ") && !starts_with(l, "AMDSMI Tool") && !starts_with(l, "#")))
      s.warnings.push_back(stray_line(tag.empty() || tag == "GPU" ? "rocm-smi" : "hy-smi", l));
  }
  bool hygon = tag == "DCU" || tag == "HCU";
  for (const auto& [i, p] : pairs) hygon = hygon || smi_pairs_look_hygon(p);
  for (auto& d : s.devices) {
    apply_smi_pairs(d, pairs[d.index]);
    if (hygon && !d.vendor) d.vendor = Vendor::hygon;
    if (driver) d.driver_version = driver;
  }
  add_matrix_links(s.topology, find_matrices(cap.lines));
  if (driver) s.facts.push_back({"driver", "amdgpu " + *driver});
  finish(s, hygon ? SourceKind::hy_smi : SourceKind::rocm_smi);
  return s;
}

}  // namespace dcukit::telemetry::parse
