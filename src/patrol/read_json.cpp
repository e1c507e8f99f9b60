// A patrol report's JSON read back: what `report` and a fleet's merge read across hosts.
#include <fmt/format.h>

#include "patrol/render.h"
#include "util/json_text.h"

namespace dcukit::patrol {

Result<Report> from_json(std::string_view text) {
  using util::read_at;
  using util::string_at;
  const nlohmann::json j = util::parse_json(text);
  const auto state = parse_state(string_at(j, "state"));
  if (!j.is_object() || !j.contains("run_info") || !state || !j.contains("findings"))
    return Error{"not a dcukit patrol report: no JSON object with run_info, state and findings (write one with "
                 "`dcukit patrol --json`)"};
  Report r;
  r.run_info = core::run_info_from_json(j["run_info"]);
  r.state = *state;
  read_at(j, "timestamp", r.timestamp);
  read_at(j, "source", r.source);
  read_at(j, "devices", r.devices);
  for (const auto& f : j["findings"]) {
    const auto s = parse_state(string_at(f, "state"));
    if (!s) return Error{fmt::format("findings[]: state '{}' is not OK, WARNING, CRITICAL or UNKNOWN", string_at(f, "state"))};
    r.findings.push_back({string_at(f, "subject"), string_at(f, "check"), *s, string_at(f, "message")});
  }
  for (const auto& p : j.value("perfdata", nlohmann::json::array())) {
    Perf perf;
    read_at(p, "label", perf.label);
    read_at(p, "value", perf.value);
    read_at(p, "uom", perf.uom);
    read_at(p, "warn", perf.warn);
    read_at(p, "crit", perf.crit);
    read_at(p, "min", perf.min);
    read_at(p, "max", perf.max);
    r.perfdata.push_back(std::move(perf));
  }
  return r;
}

}  // namespace dcukit::patrol
