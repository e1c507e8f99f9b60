#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/table.h"
#include "port/render.h"

namespace dcukit::port {
namespace {

std::string library_list(const std::map<RuleId, int>& refs) {
  std::string out;
  for (const auto& [rule, n] : refs) {
    std::string_view name = to_string(rule);
    name.remove_prefix(4);  // "lib."
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", name, n);
  }
  return out.empty() ? "-" : out;
}

}  // namespace

std::string also_lines(const Finding& f) {
  if (f.also.empty()) return {};
  std::string lines;
  const std::size_t shown = std::min<std::size_t>(f.also.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) lines += fmt::format("{}{}", i ? ", " : "", f.also[i]);
  if (shown < f.also.size()) lines += fmt::format(" and {} more", f.also.size() - shown);
  return fmt::format("The same at {} {} ({} places in this file).", f.also.size() == 1 ? "line" : "lines", lines,
                     f.also.size() + 1);
}

namespace {

/// The findings per rule and the per-file statistics, for text and Markdown alike.
std::vector<core::Table> summary_tables(const AuditReport& r) {
  std::vector<core::Table> out;
  std::map<RuleId, std::map<Severity, int>> per_rule;
  for (const Finding& f : r.findings) ++per_rule[f.rule][f.severity];
  if (!per_rule.empty()) {
    core::Table t;
    t.title = "Findings by rule";
    t.columns = {{"rule", core::Align::left}, {"errors"}, {"warnings"}, {"notes"}, {"what", core::Align::left}};
    for (const auto& [rule, n] : per_rule) {
      auto get = [&](Severity s) { return n.count(s) ? std::to_string(n.at(s)) : std::string("-"); };
      t.add_row({std::string(to_string(rule)), get(Severity::error), get(Severity::warning), get(Severity::note),
                 std::string(rule_info(rule).summary)});
    }
    out.push_back(std::move(t));
  }

  core::Table files;
  files.title = "Files (statistics count every branch; findings only what a HIP build compiles)";
  files.columns = {
      {"file", core::Align::left},      {"lines"},   {"CUDA API refs"}, {"names"}, {"kernels"}, {"launches"},
      {"libraries", core::Align::left}, {"findings"}};
  int lines = 0, refs = 0, kernels = 0, launches = 0;
  for (const FileSummary& s : r.files) {
    int found = 0;
    for (const auto& [rule, n] : s.findings) found += n;
    files.add_row({s.path, std::to_string(s.lines), std::to_string(s.cuda_api_refs), std::to_string(s.cuda_api_names),
                   std::to_string(s.kernels), std::to_string(s.launches), library_list(s.library_refs),
                   std::to_string(found)});
    lines += s.lines;
    refs += s.cuda_api_refs;
    kernels += s.kernels;
    launches += s.launches;
  }
  if (r.files.size() > 1)
    files.add_row({fmt::format("{} files", r.files.size()), std::to_string(lines), std::to_string(refs), "",
                   std::to_string(kernels), std::to_string(launches), "", std::to_string(r.findings.size())});
  out.push_back(std::move(files));
  return out;
}

/// "3 errors, 2 warnings, 1 notes; 1 suppressed ..." and the run's notes.
std::string totals_text(const AuditReport& r) {
  std::string out = fmt::format("{} errors, {} warnings, {} notes", r.count(Severity::error), r.count(Severity::warning),
                                r.count(Severity::note));
  if (r.suppressed > 0) out += fmt::format("; {} suppressed by dcukit-port comments", r.suppressed);
  if (!r.ignored.empty()) {
    std::string names;
    for (RuleId id : r.ignored) names += fmt::format("{}{}", names.empty() ? "" : ", ", to_string(id));
    out += fmt::format("; ignored: {}", names);
  }
  out += "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace

std::string render_text(const AuditReport& r) {
  std::string out;
  for (const Finding& f : r.findings) {
    const std::string also = also_lines(f);
    out += fmt::format("{}:{}:{}: {}: [{}] {}{}{}\n    {}\n    fix: {}\n", f.file, f.line, f.column,
                       to_string(f.severity), to_string(f.rule), f.why, also.empty() ? "" : " ", also, f.code, f.fix);
  }
  if (!r.findings.empty()) out += "\n";
  const auto tables = summary_tables(r);
  for (std::size_t i = 0; i < tables.size(); ++i) out += core::render_text(tables[i]) + (i + 1 < tables.size() ? "\n" : "");
  return out + "\n" + totals_text(r);
}

std::string render_markdown(const AuditReport& r) {
  core::Table findings;
  findings.title = "Findings";
  findings.columns = {{"place", core::Align::left}, {"severity", core::Align::left}, {"rule", core::Align::left},
                      {"why", core::Align::left}, {"fix", core::Align::left}};
  for (const Finding& f : r.findings) {
    const std::string also = also_lines(f);
    findings.add_row({fmt::format("{}:{}", f.file, f.line), std::string(to_string(f.severity)),
                      std::string(to_string(f.rule)), f.why + (also.empty() ? "" : " " + also), f.fix});
  }
  std::string out = core::render_markdown(findings) + "\n";
  for (const auto& t : summary_tables(r)) out += core::render_markdown(t) + "\n";
  return out + totals_text(r);
}

std::string render_rules_text() {
  std::string out;
  for (const RuleInfo& r : all_rules())
    out += fmt::format("{} ({})\n  finds: {}\n  why:   {}\n  fix:   {}\n\n", r.name, to_string(r.severity), r.summary,
                       r.why, r.fix);
  out +=
      "Suppress one line with a comment `// dcukit-port: ignore RULE[,RULE]` on it or on the line above; leave a "
      "rule out with --ignore RULE (or a family: --ignore 'lib.*').\n";
  return out;
}

std::string render_text(const TranslateReport& r) {
  std::string out;
  for (const TranslatedFile& f : r.files) {
    if (f.already_hip) {
      out += fmt::format("{} -> {}: HIP already (it includes HIP's headers), copied unchanged\n", f.input, f.output);
      continue;
    }
    out += fmt::format("{} -> {}: {} references converted", f.input, f.output, f.converted_refs());
    if (f.hip_branch_refs > 0)
      out += fmt::format(", {} names in HIP-only branches left as they are", f.hip_branch_refs);
    if (f.masks_dropped > 0) out += fmt::format(", {} full-mask *_sync calls made mask-free", f.masks_dropped);
    if (f.annotated_lines > 0) out += fmt::format(", {} lines marked with audit rules", f.annotated_lines);
    if (f.runtime_include_added) out += ", #include <hip/hip_runtime.h> added (nvcc's implicit cuda_runtime.h)";
    out += "\n";
    for (const Conversion& c : f.converted) out += fmt::format("  {} => {}: {}\n", c.cuda, c.hip, c.count);
    for (const Untranslated& u : f.untranslated)
      out += fmt::format("  warning: {}:{}: {} ({}x) not translated: {}\n", f.input, u.first_line, u.name, u.count,
                         u.reason);
  }
  return out;
}

std::string render_markdown(const TranslateReport& r) {
  core::Table files;
  files.title = "Translated files";
  files.columns = {{"input", core::Align::left}, {"output", core::Align::left}, {"converted"},
                   {"masks made mask-free"}, {"untranslated", core::Align::left}};
  for (const TranslatedFile& f : r.files) {
    std::string left;
    for (const Untranslated& u : f.untranslated)
      left += fmt::format("{}{} (line {}: {})", left.empty() ? "" : "; ", u.name, u.first_line, u.reason);
    files.add_row({f.input, f.output, f.already_hip ? "HIP already" : std::to_string(f.converted_refs()),
                   std::to_string(f.masks_dropped), left.empty() ? "-" : left});
  }
  return core::render_markdown(files);
}

}  // namespace dcukit::port
