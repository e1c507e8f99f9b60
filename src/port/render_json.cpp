// The audit as JSON, and as a SARIF 2.1.0 log.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/run_info.h"
#include "port/render.h"
#include "util/json_text.h"

namespace dcukit::port {
namespace {

using ojson = nlohmann::ordered_json;

std::string sarif_level(Severity s) {
  return std::string(to_string(s));  // SARIF's levels are error, warning and note, like ours
}

/// A relative path as a URI reference, an absolute one as a file:// URI; spaces and % escaped.
std::string uri_of(const std::string& path) {
  std::string p = std::filesystem::path(path).generic_string();
  if (p.rfind("./", 0) == 0) p = p.substr(2);
  std::string out;
  for (char c : p) {
    if (c == ' ')
      out += "%20";
    else if (c == '%')
      out += "%25";
    else if (c == '#')
      out += "%23";
    else
      out += c;
  }
  return !p.empty() && p[0] == '/' ? "file://" + out : out;
}

ojson finding_json(const Finding& f) {
  return ojson{{"rule", to_string(f.rule)},
               {"severity", to_string(f.severity)},
               {"file", f.file},
               {"line", f.line},
               {"column", f.column},
               {"code", f.code},
               {"why", f.why},
               {"fix", f.fix},
               {"also_lines", f.also}};
}

ojson library_json(const std::map<RuleId, int>& refs) {
  ojson out = ojson::object();
  for (const auto& [rule, n] : refs) out[std::string(to_string(rule).substr(4))] = n;
  return out;
}

}  // namespace

ojson to_json(const AuditReport& r) {
  ojson j = core::report_head(r.run_info, 1);
  j["findings"] = ojson::array();
  for (const Finding& f : r.findings) j["findings"].push_back(finding_json(f));
  j["files"] = ojson::array();
  for (const FileSummary& s : r.files) {
    ojson per_rule = ojson::object();
    for (const auto& [rule, n] : s.findings) per_rule[std::string(to_string(rule))] = n;
    j["files"].push_back(ojson{{"path", s.path},
                               {"lines", s.lines},
                               {"cuda_api_refs", s.cuda_api_refs},
                               {"cuda_api_names", s.cuda_api_names},
                               {"kernels", s.kernels},
                               {"launches", s.launches},
                               {"library_refs", library_json(s.library_refs)},
                               {"findings", per_rule}});
  }
  ojson ignored = ojson::array();
  for (RuleId id : r.ignored) ignored.push_back(to_string(id));
  j["totals"] = ojson{{"files", r.files.size()},
                      {"findings", r.findings.size()},
                      {"errors", r.count(Severity::error)},
                      {"warnings", r.count(Severity::warning)},
                      {"notes", r.count(Severity::note)},
                      {"suppressed", r.suppressed},
                      {"ignored", ignored}};
  j["notes"] = r.notes;
  return j;
}

ojson to_json(const TranslateReport& r) {
  ojson j = core::report_head(r.run_info, 1);
  j["files"] = ojson::array();
  for (const TranslatedFile& f : r.files) {
    ojson converted = ojson::array(), untranslated = ojson::array();
    for (const Conversion& c : f.converted) converted.push_back(ojson{{"cuda", c.cuda}, {"hip", c.hip}, {"count", c.count}});
    for (const Untranslated& u : f.untranslated)
      untranslated.push_back(
          ojson{{"name", u.name}, {"count", u.count}, {"first_line", u.first_line}, {"reason", u.reason}});
    j["files"].push_back(ojson{{"input", f.input},
                               {"output", f.output},
                               {"lines", f.lines},
                               {"already_hip", f.already_hip},
                               {"converted_refs", f.converted_refs()},
                               {"converted", converted},
                               {"untranslated", untranslated},
                               {"masks_dropped", f.masks_dropped},
                               {"annotated_lines", f.annotated_lines},
                               {"runtime_include_added", f.runtime_include_added},
                               {"hip_branch_refs", f.hip_branch_refs}});
  }
  return j;
}

std::string render_audit_sarif(const AuditReport& r) {
  ojson rules = ojson::array();
  std::map<RuleId, std::size_t> index;
  for (const RuleInfo& info : all_rules()) {
    index[info.id] = rules.size();
    const std::string id(info.name);
    rules.push_back(ojson{{"id", id},
                          {"name", id},
                          {"shortDescription", {{"text", info.summary}}},
                          {"fullDescription", {{"text", info.why}}},
                          {"help", {{"text", std::string("Fix: ") + std::string(info.fix)}}},
                          {"defaultConfiguration", {{"level", sarif_level(info.severity)}}},
                          {"properties", {{"tags", ojson::array({"portability", id.substr(0, id.find('.'))})}}}});
  }
  ojson results = ojson::array();
  for (const Finding& f : r.findings) {
    ojson region{{"startLine", f.line}, {"startColumn", f.column}, {"snippet", {{"text", f.code}}}};
    const std::string also = also_lines(f);
    ojson result{
        {"ruleId", to_string(f.rule)},
        {"ruleIndex", index[f.rule]},
        {"level", sarif_level(f.severity)},
        {"message", {{"text", f.why + (also.empty() ? "" : " " + also) + " Fix: " + f.fix}}},
        {"locations", ojson::array({ojson{{"physicalLocation",
                                           {{"artifactLocation", {{"uri", uri_of(f.file)}}}, {"region", region}}}}})}};
    if (!f.also.empty()) {
      ojson related = ojson::array();
      for (std::size_t i = 0; i < f.also.size(); ++i)
        related.push_back(ojson{{"id", i + 1},
                                {"message", {{"text", "the same"}}},
                                {"physicalLocation",
                                 {{"artifactLocation", {{"uri", uri_of(f.file)}}}, {"region", {{"startLine", f.also[i]}}}}}});
      result["relatedLocations"] = std::move(related);
    }
    results.push_back(std::move(result));
  }
  ojson run{{"tool",
             {{"driver",
               {{"name", "dcukit-port"},
                {"fullName", "dcukit port audit: CUDA sources checked for HIP, 64-lane wavefronts and DCU"},
                {"version", DCUKIT_VERSION},
                {"rules", rules}}}}},
            {"columnKind", "unicodeCodePoints"},
            {"results", results}};
  ojson log{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
            {"version", "2.1.0"},
            {"runs", ojson::array({run})}};
  return util::json_text(log, 2) + "\n";
}

}  // namespace dcukit::port
