#include "doctor/render.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/table.h"
#include "util/json_text.h"

namespace dcukit::doctor {
namespace {

using nlohmann::json;

json or_null(const std::string& s) {
  return s.empty() ? json(nullptr) : json(s);
}

std::string label(const Finding& f) {
  return f.subject.empty() ? f.id : f.id + " [" + f.subject + "]";
}

}  // namespace

std::string render_text(const Report& report, bool verbose) {
  std::string out = fmt::format("dcukit doctor: {} ({}){}\n\n", report.run_info.host.hostname,
                                report.run_info.started_at, report.root == "/" ? "" : ", host tree " + report.root);
  core::Table t;
  t.columns = {{"status", core::Align::left}, {"check", core::Align::left}, {"finding", core::Align::left}};
  for (const auto& f : report.findings) t.add_row({std::string(to_string(f.status)), label(f), f.summary});
  out += core::render_text(t);
  std::vector<const Finding*> problems;
  for (const auto& f : report.findings)
    if (f.status == Verdict::warn || f.status == Verdict::fail || verbose) problems.push_back(&f);
  if (!problems.empty()) out += verbose ? "\nEvery finding:\n" : "\nWhat to fix:\n";
  for (const Finding* f : problems) {
    out += fmt::format("\n[{}] {}: {}\n", to_string(f->status), label(*f), f->summary);
    for (const auto& e : f->evidence) out += "    saw: " + e + "\n";
    if (!f->why.empty()) out += "    why: " + f->why + "\n";
    if (!f->fix.empty()) out += "    fix: " + f->fix + "\n";
  }
  const auto s = report.summary();
  out += fmt::format("\n{} ok, {} warn, {} fail, {} skipped\n", s.ok, s.warn, s.fail, s.skip);
  return out;
}

std::string render_markdown(const Report& report) {
  core::Table t;
  t.title = fmt::format("dcukit doctor: {} ({})", report.run_info.host.hostname, report.run_info.started_at);
  t.columns = {{"status", core::Align::left}, {"check", core::Align::left}, {"finding", core::Align::left},
               {"evidence", core::Align::left}, {"fix", core::Align::left}};
  for (const auto& f : report.findings) {
    std::string evidence;
    for (const auto& e : f.evidence) evidence += (evidence.empty() ? "" : "; ") + e;
    t.add_row({std::string(to_string(f.status)), label(f), f.summary, evidence, f.fix});
  }
  const auto s = report.summary();
  t.notes.push_back(fmt::format("{} ok, {} warn, {} fail, {} skipped", s.ok, s.warn, s.fail, s.skip));
  return core::render_markdown(t);
}

nlohmann::ordered_json to_json(const Report& report) {
  json findings = json::array();
  for (const auto& f : report.findings)
    findings.push_back({{"id", f.id},
                        {"category", to_string(f.category)},
                        {"subject", or_null(f.subject)},
                        {"status", to_string(f.status)},
                        {"summary", f.summary},
                        {"evidence", f.evidence},
                        {"why", or_null(f.why)},
                        {"fix", or_null(f.fix)}});
  const auto s = report.summary();
  // run_info first, then schema_version, as every dcukit report (ordered, not sorted).
  nlohmann::ordered_json j = core::report_head(report.run_info, 1);
  j["root"] = report.root;
  j["summary"] = {{"ok", s.ok}, {"warn", s.warn}, {"fail", s.fail}, {"skip", s.skip}};
  j["findings"] = nlohmann::ordered_json(findings);
  return j;
}

Result<Report> from_json(std::string_view text) {
  const json j = util::parse_json(text);
  if (j.is_discarded() || !j.is_object() || !j.contains("findings") || !j["findings"].is_array())
    return Error{"not a doctor report (no \"findings\" list)"};
  Report r;
  r.root = j.value("root", "");
  const auto& str = util::string_at;
  for (const auto& f : j["findings"]) {
    if (!f.is_object()) return Error{"a finding is not an object"};
    Finding x;
    x.id = str(f, "id");
    auto cat = parse_category(str(f, "category"));
    auto st = parse_status(str(f, "status"));
    if (x.id.empty() || !cat || !st)
      return Error{fmt::format("finding '{}' has no valid id, category or status", x.id)};
    x.category = *cat;
    x.status = *st;
    x.subject = str(f, "subject");
    x.summary = str(f, "summary");
    x.why = str(f, "why");
    x.fix = str(f, "fix");
    if (f.contains("evidence") && f["evidence"].is_array())
      for (const auto& e : f["evidence"])
        if (e.is_string()) x.evidence.push_back(e.get<std::string>());
    r.findings.push_back(std::move(x));
  }
  return r;
}

}  // namespace dcukit::doctor
