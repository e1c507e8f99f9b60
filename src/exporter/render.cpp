#include "exporter/render.h"

#include <fmt/format.h>

#include "core/table.h"
#include "util/json_text.h"

namespace dcukit::exporter {

std::string render_text(const Report& r) {
  return fmt::format("served http://{}/metrics: {} scrape{}, {} collect error{}\n", r.address, r.scrapes,
                     r.scrapes == 1 ? "" : "s", r.collect_errors, r.collect_errors == 1 ? "" : "s");
}

std::string render_markdown(const Report& r) {
  core::Table t;
  t.title = "exporter";
  t.columns = {{"address", core::Align::left}, {"scrapes"}, {"collect errors"}};
  t.add_row({r.address, std::to_string(r.scrapes), std::to_string(r.collect_errors)});
  return core::render_markdown(t);
}

nlohmann::ordered_json to_json(const Report& r) {
  nlohmann::ordered_json j = core::report_head(r.run_info, 1);
  j["address"] = r.address;
  j["scrapes"] = r.scrapes;
  j["collect_errors"] = r.collect_errors;
  return j;
}

Result<Report> from_json(std::string_view text) {
  const nlohmann::json j = util::parse_json(text);
  if (!j.is_object() || !j.contains("run_info") || !j.contains("address"))
    return Error{"not a dcukit exporter report: no JSON object with run_info and address (write one with `dcukit "
                 "exporter --json FILE`)"};
  Report r;
  r.run_info = core::run_info_from_json(j["run_info"]);
  util::read_at(j, "address", r.address);
  util::read_at(j, "scrapes", r.scrapes);
  util::read_at(j, "collect_errors", r.collect_errors);
  return r;
}

}  // namespace dcukit::exporter
