#include "patrol/render.h"
#include "core/run_info.h"
#include "core/table.h"
#include "util/redact.h"

#include <fmt/format.h>

#include <algorithm>

namespace dcukit::patrol {
namespace {

std::string num(double v) {
  return fmt::format("{}", v);
}

std::string opt(const std::optional<double>& v) {
  return v ? num(*v) : "";
}

/// Findings worst first (CRITICAL, WARNING, UNKNOWN), in their order within a state.
std::vector<const Finding*> problems(const Report& r) {
  std::vector<const Finding*> out;
  for (State s : {State::critical, State::warning, State::unknown})
    for (const auto& f : r.findings)
      if (f.state == s) out.push_back(&f);
  return out;
}

}  // namespace

std::string perf_text(const Perf& p) {
  const bool quote = p.label.find_first_of(" '=") != std::string::npos;
  std::string out = quote ? "'" + p.label + "'" : p.label;
  out += "=" + num(p.value) + p.uom;
  std::vector<std::string> tail{p.warn, p.crit, opt(p.min), opt(p.max)};
  while (!tail.empty() && tail.back().empty()) tail.pop_back();
  for (const auto& t : tail) out += ";" + t;
  return out;
}

std::string summary(const Report& r) {
  const auto bad = problems(r);
  if (bad.empty()) {
    std::size_t service = 0;
    for (const auto& f : r.findings) service += f.subject == "service";
    return fmt::format("{} devices within limits{}; {} checks OK", r.devices, service ? ", service healthy" : "",
                       r.findings.size());
  }
  std::string out;
  for (const auto* f : bad) {
    if (!out.empty()) out += "; ";
    out += f->subject + " " + f->check + " " + f->message;
  }
  return out;
}

std::string render_nagios(const Report& r, bool verbose) {
  std::string out = fmt::format("PATROL {} - {}", to_string(r.state), summary(r));
  std::string perf;
  for (const auto& p : r.perfdata) perf += (perf.empty() ? "" : " ") + perf_text(p);
  // '|' separates the perfdata; the summary must not hold one.
  std::replace(out.begin(), out.end(), '|', '/');
  if (!perf.empty()) out += " | " + perf;
  out += "\n";
  if (verbose)
    for (const auto& f : r.findings)
      out += fmt::format("{} {} {}: {}\n", f.subject, f.check, to_string(f.state), f.message);
  return util::redact(out);
}

std::string render_text(const Report& r) {
  return render_nagios(r, true);
}

std::string render_markdown(const Report& r) {
  core::Table t;
  t.title = fmt::format("PATROL {}: {}", to_string(r.state), summary(r));
  t.columns = {{"subject", core::Align::left}, {"check", core::Align::left}, {"state", core::Align::left},
               {"what was seen", core::Align::left}};
  for (const auto& f : r.findings) t.add_row({f.subject, f.check, std::string(to_string(f.state)), f.message});
  return core::render_markdown(t);
}

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::json j;
  j["timestamp"] = r.timestamp;
  j["source"] = r.source;
  j["state"] = std::string(to_string(r.state));
  j["exit_code"] = static_cast<int>(r.state);
  j["summary"] = summary(r);
  j["devices"] = r.devices;
  auto& findings = j["findings"] = nlohmann::json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"subject", f.subject},
                        {"check", f.check},
                        {"state", std::string(to_string(f.state))},
                        {"message", f.message}});
  auto& perf = j["perfdata"] = nlohmann::json::array();
  for (const auto& p : r.perfdata) {
    nlohmann::json e{{"label", p.label}, {"value", p.value}, {"uom", p.uom}};
    e["warn"] = p.warn.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.warn);  // Nagios ranges
    e["crit"] = p.crit.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.crit);
    e["min"] = p.min ? nlohmann::json(*p.min) : nlohmann::json(nullptr);
    e["max"] = p.max ? nlohmann::json(*p.max) : nlohmann::json(nullptr);
    perf.push_back(std::move(e));
  }
  util::redact_strings(j);
  nlohmann::ordered_json out = core::report_head(r.run_info, 1);
  for (const auto& [k, v] : j.items()) out[k] = v;
  return out;
}

}  // namespace dcukit::patrol
