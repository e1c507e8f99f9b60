#include "stress/render.h"

#include <fmt/format.h>

#include "core/expected.h"
#include "core/table.h"
#include "core/units.h"
#include "stress/timing.h"

namespace dcukit::stress {
namespace {

using Json = nlohmann::ordered_json;

std::string figure(const CheckResult& c, const std::optional<double>& v) {
  if (!v) return "-";
  if (c.unit == "W") return fmt::format("{:.0f} W", *v);
  return rate_text(*v, c.unit);
}

/// The sustained figure against the SKU's (data/stress.json), placed as bench places its own:
/// "normal 1.00x", "LOW 0.80x", "high 1.20x", or "-" without a reference.
std::string placement_text(const CheckResult& c) {
  if (!c.rate || !c.expected || !c.floor || *c.expected <= 0) return "-";
  return core::placement_text(core::place_figure(*c.rate, *c.expected, *c.floor), *c.rate / *c.expected);
}

core::Table verdict_table(const Report& r) {
  core::Table t;
  t.title = fmt::format("dcukit stress level {} on the {} backend: {:.0f} s of {:.0f} planned", r.level,
                        device::to_string(r.backend), r.elapsed_s, r.planned_s);
  t.columns = {{"device"},
               {"check", core::Align::left},
               {"verdict", core::Align::left},
               {"measured"},
               {"floor", core::Align::right, true},
               {"vs expected", core::Align::left, true},
               {"action", core::Align::left},
               {"what", core::Align::left}};
  for (const auto& d : r.devices)
    for (const auto& c : d.checks)
      t.add_row({std::to_string(d.index), std::string(to_string(c.kind)), std::string(to_string(c.verdict)),
                 figure(c, c.rate), figure(c, c.floor), placement_text(c),
                 c.action == Action::none ? "" : std::string(to_string(c.action)), c.summary});
  for (const auto& d : r.devices)
    t.notes.push_back(fmt::format("device {} ({}{}): {}{}", d.index, d.name,
                                  d.sku.empty() ? ", no reference" : ", " + d.sku, to_string(d.verdict),
                                  d.action == Action::none ? "" : fmt::format(", {}", to_string(d.action))));
  return t;
}

std::string problems(const Report& r) {
  std::string out;
  for (const auto& d : r.devices)
    for (const auto& c : d.checks) {
      if (c.verdict == Verdict::pass || c.verdict == Verdict::skip) continue;
      out += fmt::format("\n[{}] device {} {}: {}\n", to_string(c.verdict), d.index, to_string(c.kind), c.summary);
      for (const auto& e : c.evidence) out += "    saw: " + e + "\n";
      if (!c.reference.empty()) out += "    against: " + c.reference + "\n";
      out += fmt::format("    action: {}\n", to_string(c.action));
    }
  return out;
}

Json opt(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}
template <class T>
Json opt_of(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

}  // namespace

std::string render_text(const Report& r) {
  std::string out = core::render_text(verdict_table(r)) + problems(r);
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out + fmt::format("\n{}\n", to_string(r.verdict()));
}

std::string render_markdown(const Report& r) {
  std::string out = core::render_markdown(verdict_table(r));
  const std::string p = problems(r);
  if (!p.empty()) out += "\n```\n" + p.substr(1) + "```\n";
  return out;
}

Json to_json(const Report& r) {
  Json j = core::report_head(r.run_info, 1);
  j["level"] = r.level;
  j["backend"] = std::string(device::to_string(r.backend));
  j["planned_s"] = r.planned_s;
  j["elapsed_s"] = r.elapsed_s;
  j["verdict"] = std::string(to_string(r.verdict()));
  j["interrupted"] = r.interrupted;
  j["notes"] = r.notes;
  j["devices"] = Json::array();
  for (const auto& d : r.devices) {
    Json checks = Json::array();
    for (const auto& c : d.checks) {
      Json series = Json::array();
      for (const auto& p : c.series) series.push_back(Json::array({p.t_s, p.rate}));
      checks.push_back({{"check", std::string(to_string(c.kind))},
                        {"verdict", std::string(to_string(c.verdict))},
                        {"action", std::string(to_string(c.action))},
                        {"summary", c.summary},
                        {"evidence", c.evidence},
                        {"seconds", c.seconds},
                        {"unit", c.unit},
                        {"rate", opt(c.rate)},
                        {"expected", opt(c.expected)},
                        {"floor", opt(c.floor)},
                        {"placement", c.rate && c.expected && c.floor
                                          ? std::string(core::to_string(core::place_figure(*c.rate, *c.expected, *c.floor)))
                                          : std::string(core::to_string(core::Placement::no_reference))},
                        {"reference", c.reference},
                        {"errors", c.errors},
                        {"series", series}});
    }
    j["devices"].push_back({{"index", d.index},
                            {"name", d.name},
                            {"pci_id", d.pci_id},
                            {"bus_id", d.bus_id},
                            {"sku", d.sku},
                            {"verdict", std::string(to_string(d.verdict))},
                            {"action", std::string(to_string(d.action))},
                            {"checks", checks}});
  }
  j["samples"] = Json::array();
  for (const auto& s : r.samples) {
    Json x = {{"t_s", s.t_s}, {"device", s.device}, {"phase", s.phase}};
    visit_figures(s, [&](const char* name, const auto& v) { x[name] = opt_of(v); });
    j["samples"].push_back(std::move(x));
  }
  j["kernel"] = Json::array();
  for (const auto& k : r.kernel)
    j["kernel"].push_back({{"t_s", k.t_s}, {"device", k.device}, {"kind", k.kind}, {"xid", k.xid}, {"text", k.text}});
  return j;
}

std::string render_csv(const Report& r) {
  core::Table t;
  t.columns = {{"t_s"}, {"device"}, {"phase"}};
  Sample none;
  visit_figures(none, [&](const char* name, const auto&) { t.columns.push_back({name}); });
  for (const auto& s : r.samples) {
    std::vector<std::string> row = {fmt::format("{:.3f}", s.t_s), std::to_string(s.device), s.phase};
    visit_figures(s, [&](const char*, const auto& v) { row.push_back(v ? fmt::format("{}", *v) : std::string()); });
    t.add_row(std::move(row));
  }
  return core::render_csv(t);
}

}  // namespace dcukit::stress
