// Health tools' outputs: `dcgmi diag` (a boxed table of checks, long Info/Warning text wrapped
// at a fixed width, words split across rows) and ROCm Validation Suite logs (`rvs -g`'s GPU list,
// "[RESULT]" lines with "met: TRUE/FALSE", the P2P JSON log's srcgpu/dstgpu/throughput).
#include <fmt/format.h>

#include <map>

#include "telemetry/lenient_json.h"
#include "telemetry/parsers.h"
#include "util/json_text.h"
#include "util/regex.h"

namespace dcukit::telemetry::parse {
namespace {

std::string collapse_spaces(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  return std::string(trim(out));
}

CheckStatus status_of(std::string_view result) {
  const std::string r = lower(trim(result));
  if (starts_with(r, "fail")) return CheckStatus::fail;
  if (starts_with(r, "skip")) return CheckStatus::skip;
  if (starts_with(r, "warn")) return CheckStatus::warn;
  return CheckStatus::pass;
}

}  // namespace

Snapshot dcgmi_diag(const Capture& cap) {
  Snapshot s;
  std::string category, driver;
  std::string* detail = nullptr;  // the text a wrapped Info/Warning row continues
  std::vector<std::string> ids;
  for (const auto& line : cap.lines) {
    if (starts_with(line, "|-----") || starts_with(line, "+-----")) {
      std::string c;  // "|-----  Hardware  ----------+-----|" -> "Hardware"
      for (char ch : line)
        if (ch != '-' && ch != '|' && ch != '+') c += ch;
      category = std::string(trim(c));
      detail = nullptr;
      continue;
    }
    const auto cells = split(line, '|');
    if (cells.size() < 4 || !starts_with(line, "|")) continue;
    const std::string name(trim(cells[1]));
    const std::string& raw = cells[2];
    const std::string value = raw.size() >= 3 ? raw.substr(1, raw.size() - 3) : raw;
    if (name.empty()) {
      if (detail) *detail += value;
      continue;
    }
    if (category == "Metadata") {
      if (name == "Driver Version Detected")
        driver = std::string(trim(value));
      else if (name == "GPU Device IDs Detected")
        ids = split(std::string(trim(value)), ',');
      else if (name == "DCGM Version")
        s.facts.push_back({"dcgm_version", std::string(trim(value))});
      continue;
    }
    if (name == "Diagnostic" && trim(value) == "Result") continue;
    if ((name == "Info" || name == "Warning") && !s.checks.empty()) {
      Check& c = s.checks.back();
      if (!c.detail.empty()) c.detail += " | ";
      c.detail += name + ": ";
      if (name == "Warning" && c.status == CheckStatus::pass) c.status = CheckStatus::warn;
      c.detail += value;
      detail = &c.detail;
      continue;
    }
    s.checks.push_back(Check{category, name, status_of(value), std::string(trim(value)), ""});
    detail = nullptr;
  }
  for (auto& c : s.checks) {
    c.detail = collapse_spaces(c.detail);
    if (c.status == CheckStatus::fail) s.warnings.push_back("dcgmi diag: " + c.name + ": " + c.result);
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    DeviceState& d = device_at(s.devices, static_cast<int>(i));
    d.device_id = pci_id(ids[i]);
    d.vendor = Vendor::nvidia;
    d.driver_version = text_value(driver);
  }
  finish(s, SourceKind::dcgmi);
  return s;
}

Snapshot rvs(const Capture& cap) {
  Snapshot s;
  static const util::Regex kGpu(R"(^([0-9a-fA-F:.]+) - GPU\[\s*(\d+)\s*-\s*(\d+)\s*\]\s+(.*?)\s+\(Device (\d+)\)$)");
  static const util::Regex kMet(R"(\[RESULT\]\s*\[[^\]]*\]\s*\[([^\]]+)\]\s*\[GPU::\s*(\d+)\]\s*(.*)met:\s*(\w+))");
  std::map<std::string, std::string> endpoint;  // KFD GPU id -> "GPU<i>"
  std::string module = "rvs", json_text;
  bool in_json = false;
  for (const auto& line : cap.lines) {
    const std::string_view l = trim(line);
    util::Match m;
    const std::string ls(l);
    if (kGpu.full_match(ls, &m)) {
      DeviceState& d = device_at(s.devices, static_cast<int>(s.devices.size()));
      d.bus_id = normalize_bus_id(m[1].str());
      d.name = m[4].str();
      d.device_id = pci_id(m[5].str(), true);
      d.vendor = vendor_from_text(m[4].str()).value_or(Vendor::amd);
      endpoint[m[3].str()] = "GPU" + std::to_string(d.index);
      continue;
    }
    if (contains(l, "Module name :")) module = std::string(trim(l.substr(l.find(':') + 1)));
    if (const auto at = l.find("(version "); at != std::string_view::npos && contains(l, "Validation Suite")) {
      const std::string_view v = l.substr(at + 9);
      s.facts.push_back({"rvs_version", std::string(trim(v.substr(0, v.find(')'))))});
    }
    if (kMet.search(ls, &m)) {
      const bool met = lower(m[4].str()) == "true";
      s.checks.push_back(Check{module, m[1].str(), met ? CheckStatus::pass : CheckStatus::fail, "met: " + m[4].str(),
                               "GPU " + m[2].str() + ": " + collapse_spaces(m[3].str())});
      continue;
    }
    if (starts_with(l, "{")) in_json = true;
    if (in_json && !starts_with(l, "#") && !starts_with(l, "$") && !starts_with(l, "[RESULT]")) json_text += ls + "\n";
  }
  const LenientJson json = read_lenient_json(json_text);
  for (const auto& v : json.values) {
    if (!v.is_object() || !v.contains("srcgpu")) continue;
    // A const object's operator[] on a missing key is undefined (a fuzzed log had no "dstgpu").
    const auto name = [&](const char* k) -> std::string {
      const auto it = v.find(k);
      if (it == v.end()) return fmt::format("GPU id ? (no \"{}\")", k);
      const std::string id = it->is_string() ? it->get<std::string>() : util::json_text(*it);
      return endpoint.count(id) ? endpoint[id] : "GPU id " + id;
    };
    TopoLink link{name("srcgpu"), name("dstgpu"), {}, {}, {}, {}, {}};
    if (v.contains("intf") && v["intf"].is_string()) link.type = v["intf"].get<std::string>();
    if (v.contains("throughput") && v["throughput"].is_string())
      link.bandwidth_gbps = parse_double(v["throughput"].get<std::string>());
    if (v.contains("pass")) {
      const std::string pass = v["pass"].is_string() ? v["pass"].get<std::string>() : util::json_text(v["pass"]);
      link.attributes.emplace_back("pass", pass);
      s.checks.push_back(Check{module, "p2p " + link.a + " -> " + link.b,
                               lower(pass) == "true" ? CheckStatus::pass : CheckStatus::fail, "pass: " + pass, ""});
    }
    s.topology.links.push_back(std::move(link));
  }
  if (json.truncated) s.warnings.push_back("rvs: the JSON log is cut short; the links read are those before the cut");
  for (const auto& c : s.checks)
    if (c.status == CheckStatus::fail) s.warnings.push_back("rvs: " + c.name + " failed (" + c.result + ")");
  finish(s, SourceKind::rvs);
  return s;
}

}  // namespace dcukit::telemetry::parse
