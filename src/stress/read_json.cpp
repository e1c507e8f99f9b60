// A stress report's JSON read back: what `report` and a fleet's merge read across hosts.
#include <fmt/format.h>

#include "stress/render.h"
#include "util/json_text.h"

namespace dcukit::stress {
namespace {

using Doc = nlohmann::json;  // a name of its own: the unity build shares file scopes

using util::read_at;
using util::string_at;

template <class E, class Parse>
Result<E> named(const Doc& j, const char* key, Parse parse) {
  if (auto v = parse(string_at(j, key))) return *v;
  return Error{fmt::format("{}: '{}' is not a value stress writes", key, string_at(j, key))};
}

Result<CheckResult> check_of(const Doc& j) {
  CheckResult c;
  auto kind = named<CheckKind>(j, "check", parse_check);
  auto verdict = named<Verdict>(j, "verdict", parse_verdict);
  auto action = named<Action>(j, "action", parse_action);
  if (!kind) return kind.error();
  if (!verdict) return verdict.error();
  if (!action) return action.error();
  c.kind = *kind;
  c.verdict = *verdict;
  c.action = *action;
  read_at(j, "summary", c.summary);
  read_at(j, "evidence", c.evidence);
  read_at(j, "seconds", c.seconds);
  read_at(j, "unit", c.unit);
  read_at(j, "rate", c.rate);
  read_at(j, "expected", c.expected);
  read_at(j, "floor", c.floor);
  read_at(j, "reference", c.reference);
  read_at(j, "errors", c.errors);
  for (const Doc& p : j.value("series", Doc::array()))
    if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number())
      c.series.push_back({p[0].get<double>(), p[1].get<double>()});
  return c;
}

}  // namespace

Result<Report> from_json(std::string_view text) {
  const Doc j = util::parse_json(text);
  if (!j.is_object() || !j.contains("run_info") || !j.contains("devices") || !j["devices"].is_array())
    return Error{
        "not a dcukit stress report: no JSON object with run_info and devices (write one with `dcukit "
        "stress --json`)"};
  Report r;
  r.run_info = core::run_info_from_json(j["run_info"]);
  read_at(j, "level", r.level);
  auto backend = named<device::BackendKind>(j, "backend", device::parse_backend_kind);
  if (!backend) return backend.error();
  r.backend = *backend;
  read_at(j, "planned_s", r.planned_s);
  read_at(j, "elapsed_s", r.elapsed_s);
  read_at(j, "interrupted", r.interrupted);
  read_at(j, "notes", r.notes);
  for (const Doc& d : j["devices"]) {
    DeviceResult dev;
    read_at(d, "index", dev.index);
    read_at(d, "name", dev.name);
    read_at(d, "pci_id", dev.pci_id);
    read_at(d, "bus_id", dev.bus_id);
    read_at(d, "sku", dev.sku);
    auto verdict = named<Verdict>(d, "verdict", parse_verdict);
    auto action = named<Action>(d, "action", parse_action);
    if (!verdict) return verdict.error();
    if (!action) return action.error();
    dev.verdict = *verdict;
    dev.action = *action;
    for (const Doc& c : d.value("checks", Doc::array())) {
      auto check = check_of(c);
      if (!check) return check.error();
      dev.checks.push_back(std::move(*check));
    }
    r.devices.push_back(std::move(dev));
  }
  for (const Doc& s : j.value("samples", Doc::array())) {
    Sample x;
    read_at(s, "t_s", x.t_s);
    read_at(s, "device", x.device);
    read_at(s, "phase", x.phase);
    visit_figures(x, [&](const char* name, auto& v) { read_at(s, name, v); });
    r.samples.push_back(std::move(x));
  }
  for (const Doc& k : j.value("kernel", Doc::array())) {
    KernelNote x;
    read_at(k, "t_s", x.t_s);
    read_at(k, "device", x.device);
    read_at(k, "kind", x.kind);
    read_at(k, "xid", x.xid);
    read_at(k, "text", x.text);
    r.kernel.push_back(std::move(x));
  }
  return r;
}

}  // namespace dcukit::stress
