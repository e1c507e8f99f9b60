// The audit's and the translation's JSON read back into their reports: what `report` and
// `compare` read across hosts and versions.
#include <fmt/format.h>

#include "port/render.h"
#include "util/json_text.h"

namespace dcukit::port {
namespace {

using Doc = nlohmann::json;  // a name of its own: the unity build shares file scopes

using util::read_at;
using util::string_at;

Result<RuleId> rule_at(const std::string& name, const char* where) {
  if (auto id = parse_rule(name)) return *id;
  return Error{fmt::format("{}: '{}' is not a rule of this dcukit (`dcukit port audit --rules`)", where, name)};
}

Result<Finding> finding_of(const Doc& j) {
  Finding f;
  auto rule = rule_at(string_at(j, "rule"), "findings[].rule");
  if (!rule) return rule.error();
  f.rule = *rule;
  const std::string severity = string_at(j, "severity");
  bool known = false;
  for (Severity s : {Severity::error, Severity::warning, Severity::note})
    if (severity == to_string(s)) {
      f.severity = s;
      known = true;
    }
  if (!known) return Error{fmt::format("findings[].severity: '{}' is not error, warning or note", severity)};
  read_at(j, "file", f.file);
  read_at(j, "line", f.line);
  read_at(j, "column", f.column);
  read_at(j, "code", f.code);
  read_at(j, "why", f.why);
  read_at(j, "fix", f.fix);
  read_at(j, "also_lines", f.also);
  return f;
}

Result<FileSummary> file_of(const Doc& j) {
  FileSummary s;
  read_at(j, "path", s.path);
  read_at(j, "lines", s.lines);
  read_at(j, "cuda_api_refs", s.cuda_api_refs);
  read_at(j, "cuda_api_names", s.cuda_api_names);
  read_at(j, "kernels", s.kernels);
  read_at(j, "launches", s.launches);
  if (j.contains("library_refs") && j["library_refs"].is_object())
    for (const auto& [name, n] : j["library_refs"].items()) {
      auto rule = rule_at("lib." + name, "files[].library_refs");
      if (!rule) return rule.error();
      if (n.is_number_integer()) s.library_refs[*rule] = n.get<int>();
    }
  if (j.contains("findings") && j["findings"].is_object())
    for (const auto& [name, n] : j["findings"].items()) {
      auto rule = rule_at(name, "files[].findings");
      if (!rule) return rule.error();
      if (n.is_number_integer()) s.findings[*rule] = n.get<int>();
    }
  return s;
}

/// The document, when it is an object with run_info and `key`; else the error naming the command.
Result<Doc> document(std::string_view text, const char* key, const char* what) {
  Doc j = util::parse_json(text);
  if (!j.is_object() || !j.contains("run_info") || !j.contains(key) || !j[key].is_array())
    return Error{fmt::format("not a dcukit {} report: no JSON object with run_info and {} (write one with `dcukit {} "
                             "--json`)",
                             what, key, what)};
  return j;
}

}  // namespace

Result<AuditReport> audit_from_json(std::string_view text) {
  auto j = document(text, "findings", "port audit");
  if (!j) return j.error();
  if (!j->contains("files") || !(*j)["files"].is_array())
    return Error{"not a dcukit port audit report: no files (write one with `dcukit port audit --json`)"};
  AuditReport r;
  r.run_info = core::run_info_from_json((*j)["run_info"]);
  for (const Doc& f : (*j)["findings"]) {
    auto finding = finding_of(f);
    if (!finding) return finding.error();
    r.findings.push_back(std::move(*finding));
  }
  for (const Doc& f : (*j)["files"]) {
    auto file = file_of(f);
    if (!file) return file.error();
    r.files.push_back(std::move(*file));
  }
  const Doc& totals = (*j).contains("totals") ? (*j)["totals"] : Doc();
  read_at(totals, "suppressed", r.suppressed);
  std::vector<std::string> ignored;
  read_at(totals, "ignored", ignored);
  for (const auto& name : ignored) {
    auto rule = rule_at(name, "totals.ignored");
    if (!rule) return rule.error();
    r.ignored.insert(*rule);
  }
  read_at(*j, "notes", r.notes);
  return r;
}

Result<TranslateReport> translate_from_json(std::string_view text) {
  auto j = document(text, "files", "port translate");
  if (!j) return j.error();
  TranslateReport r;
  r.run_info = core::run_info_from_json((*j)["run_info"]);
  for (const Doc& f : (*j)["files"]) {
    TranslatedFile t;
    read_at(f, "input", t.input);
    read_at(f, "output", t.output);
    read_at(f, "lines", t.lines);
    read_at(f, "already_hip", t.already_hip);
    read_at(f, "masks_dropped", t.masks_dropped);
    read_at(f, "annotated_lines", t.annotated_lines);
    read_at(f, "runtime_include_added", t.runtime_include_added);
    read_at(f, "hip_branch_refs", t.hip_branch_refs);
    for (const Doc& c : f.value("converted", Doc::array()))
      t.converted.push_back({string_at(c, "cuda"), string_at(c, "hip"), static_cast<int>(util::number_at(c, "count"))});
    for (const Doc& u : f.value("untranslated", Doc::array()))
      t.untranslated.push_back({string_at(u, "name"), static_cast<int>(util::number_at(u, "count")),
                                static_cast<int>(util::number_at(u, "first_line")), string_at(u, "reason")});
    r.files.push_back(std::move(t));
  }
  return r;
}

}  // namespace dcukit::port
