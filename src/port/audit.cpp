#include "port/audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "port/check.h"
#include "port/preprocess.h"
#include "port/syntax.h"

namespace dcukit::port {
namespace {

/// line -> rules an inline `// dcukit-port: ignore RULE` comment suppresses there.
std::map<int, std::set<RuleId>> suppressions(const SourceFile& f, std::vector<std::string>& notes) {
  std::map<int, std::set<RuleId>> out;
  std::set<int> code_lines;
  for (const Token& t : f.lexed.tokens)
    if (t.kind != TokenKind::comment) code_lines.insert(t.line);
  for (const Token& t : f.lexed.tokens) {
    if (t.kind != TokenKind::comment) continue;
    const auto at = t.text.find("dcukit-port:");
    if (at == std::string::npos) continue;
    std::string rest = t.text.substr(at + 12);
    if (rest.size() >= 2 && rest.compare(rest.size() - 2, 2, "*/") == 0) rest.resize(rest.size() - 2);
    for (char& c : rest)
      if (c == ',') c = ' ';
    std::vector<std::string> words;
    for (std::size_t i = 0; i < rest.size();) {
      while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
      std::size_t j = i;
      while (j < rest.size() && !std::isspace(static_cast<unsigned char>(rest[j]))) ++j;
      if (j > i) words.push_back(rest.substr(i, j - i));
      i = j;
    }
    if (words.empty() || words[0] != "ignore") continue;  // e.g. the translator's "dcukit-port audit:" marks
    words.erase(words.begin());
    // Rule ids all contain a dot; the first word without one starts a free-text reason.
    auto prose = std::find_if(words.begin(), words.end(), [](const std::string& w) {
      return w.find('.') == std::string::npos || w.find_first_of("():;\"'") != std::string::npos;
    });
    words.erase(prose, words.end());
    auto rules = parse_rule_names(words);
    if (!rules || words.empty()) {
      notes.push_back(fmt::format("{}:{}: the dcukit-port comment {}; `dcukit port audit --rules` lists the rules",
                                  f.path, t.line, words.empty() ? "names no rule" : rules.error().message));
      continue;
    }
    // A comment alone on its line covers the next line with code.
    int line = t.line;
    if (!std::any_of(f.lexed.tokens.begin(), f.lexed.tokens.end(),
                     [&](const Token& u) { return u.kind != TokenKind::comment && u.line == line; })) {
      auto next = code_lines.upper_bound(line);
      if (next == code_lines.end()) continue;
      line = *next;
    }
    out[line].insert(rules->begin(), rules->end());
  }
  return out;
}

FileSummary summarize(const Project& p, const SourceFile& f) {
  FileSummary s;
  s.path = f.path;
  s.lines = f.lexed.line_count;
  std::set<std::string> api;
  for (const Stream& st : f.streams) {
    const StreamView v{f, st};
    for (std::size_t k = 0; k < v.size(); ++k) {
      const Token& t = v.at(k);
      if (t.text == "<<<") ++s.launches;
      if (t.kind != TokenKind::identifier) continue;
      if (t.text == "__global__" && st.define < 0) ++s.kernels;
      if (auto lib = library_use(v, k, p.facts)) ++s.library_refs[*lib];
      const std::string& n = t.text;
      if (is_cuda_api_name(n) && !p.facts.own_names.count(n)) {
        ++s.cuda_api_refs;
        api.insert(n);
      }
    }
  }
  for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
    if (f.lexed.directives[d].name != "include") continue;
    const auto toks = directive_tokens(f, d);
    if (!toks.empty())
      if (auto lib = library_header(toks[0]->text)) ++s.library_refs[*lib];
  }
  s.cuda_api_names = static_cast<int>(api.size());
  return s;
}

}  // namespace

void Sink::add(RuleId rule, std::size_t token, std::string why, std::string fix, Severity severity,
               bool severity_given) {
  const Token& t = m_file.tok(token);
  if (!m_seen.insert({static_cast<int>(rule), t.line, t.column}).second) return;
  const RuleInfo& info = rule_info(rule);
  Finding f;
  f.rule = rule;
  f.severity = severity_given ? severity : info.severity;
  f.file = m_file.path;
  f.line = t.line;
  f.column = t.column;
  f.code = trimmed_line(m_file, t.line);
  f.why = std::move(why);
  f.fix = fix.empty() ? std::string(info.fix) : std::move(fix);
  m_out.push_back(std::move(f));
}

std::string where(const Project& p, const Place& place) {
  const SourceFile& f = p.files[place.file];
  return fmt::format("{}:{}", f.path, f.tok(place.token).line);
}

int AuditReport::count(Severity s) const {
  return static_cast<int>(
      std::count_if(findings.begin(), findings.end(), [s](const Finding& f) { return f.severity == s; }));
}

Result<std::set<RuleId>> parse_rule_names(const std::vector<std::string>& names) {
  std::set<RuleId> out;
  for (const auto& n : names) {
    if (n.size() > 2 && n.compare(n.size() - 2, 2, ".*") == 0) {
      const std::string family = n.substr(0, n.size() - 1);
      bool any = false;
      for (const auto& r : all_rules())
        if (starts_with(r.name, family)) {
          out.insert(r.id);
          any = true;
        }
      if (any) continue;
    } else if (auto r = rule_from_string(n)) {
      out.insert(*r);
      continue;
    }
    return Error{fmt::format("names an unknown rule '{}'", n)};
  }
  return out;
}

std::vector<std::string> hip_switches_with(const std::vector<std::string>& extra) {
  std::vector<std::string> out = default_hip_switches();
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

AuditReport audit_project(const Project& project, const std::set<RuleId>& ignored) {
  AuditReport report;
  report.ignored = ignored;
  for (const SourceFile& f : project.files) {
    std::vector<Finding> found;
    Sink sink(project, f, found);
    check_wave64(sink);
    check_code(sink);
    check_libs(sink);
    const auto quiet = suppressions(f, report.notes);
    FileSummary summary = summarize(project, f);
    std::sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
      return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
    });
    for (auto& finding : found) {
      if (ignored.count(finding.rule)) continue;
      if (auto it = quiet.find(finding.line); it != quiet.end() && it->second.count(finding.rule)) {
        ++report.suppressed;
        continue;
      }
      ++summary.findings[finding.rule];
      report.findings.push_back(std::move(finding));
    }
    report.files.push_back(std::move(summary));
  }
  return report;
}

Result<AuditReport> audit(const AuditOptions& options) {
  auto ignored = parse_rule_names(options.ignore);
  if (!ignored) return Error{"--ignore " + ignored.error().message + "; `dcukit port audit --rules` lists the rules"};
  auto files = expand_paths(options.paths);
  if (!files) return files.error();
  auto project = load_project(*files, hip_switches_with(options.hip_switches));
  if (!project) return project.error();
  AuditReport report = audit_project(*project, *ignored);
  report.run_info = core::collect_run_info("dcukit port audit", options.command);
  return report;
}

}  // namespace dcukit::port
