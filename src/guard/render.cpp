#include "guard/render.h"

#include <fmt/format.h>

#include "core/table.h"
#include "util/json_text.h"

namespace dcukit::guard {

std::string render_text(const Report& r) {
  return fmt::format("guard stopped: {} restart{}, last state {}, {}\n", r.restarts, r.restarts == 1 ? "" : "s",
                     to_string(r.final_state),
                     r.stop_complete ? "the service stopped completely" : "the service left processes, its port or device memory behind");
}

std::string render_markdown(const Report& r) {
  core::Table t;
  t.title = "guard";
  t.columns = {{"restarts"}, {"last state", core::Align::left}, {"stopped completely", core::Align::left}};
  t.add_row({std::to_string(r.restarts), std::string(to_string(r.final_state)), r.stop_complete ? "yes" : "no"});
  return core::render_markdown(t);
}

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::ordered_json j = core::report_head(r.run_info, 1);
  j["restarts"] = r.restarts;
  j["final_state"] = std::string(to_string(r.final_state));
  j["stop_complete"] = r.stop_complete;
  return j;
}

Result<Report> from_json(std::string_view text) {
  const nlohmann::json j = util::parse_json(text);
  const auto state = parse_state(util::string_at(j, "final_state"));
  if (!j.is_object() || !j.contains("run_info") || !state)
    return Error{"not a dcukit guard report: no JSON object with run_info and final_state (write one with `dcukit "
                 "guard --json FILE`)"};
  Report r;
  r.run_info = core::run_info_from_json(j["run_info"]);
  r.final_state = *state;
  util::read_at(j, "restarts", r.restarts);
  util::read_at(j, "stop_complete", r.stop_complete);
  return r;
}

}  // namespace dcukit::guard
