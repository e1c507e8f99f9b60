#include "port/audit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "port/check.h"
#include "port/preprocess.h"
#include "port/syntax.h"
#include "util/files.h"

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

Finding* Sink::add(RuleId rule, std::size_t token, std::string why, std::string fix, Severity severity,
                   bool severity_given) {
  const Token& t = m_file.tok(token);
  if (!m_seen.insert({static_cast<int>(rule), t.line, t.column}).second) return nullptr;
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
  return &m_out.back();
}

std::string where(const Project& p, const Place& place) {
  const SourceFile& f = p.files[place.file];
  return fmt::format("{}:{}", f.path, f.tok(place.token).line);
}

std::string lines_by_file(const Project& p, const std::map<std::size_t, std::set<int>>& lines) {
  std::string out;
  for (const auto& [file, in_file] : lines) {
    std::string list;
    int shown = 0;
    for (int line : in_file)
      if (shown++ < 8) list += fmt::format("{}{}", list.empty() ? "" : ", ", line);
    if (in_file.size() > 8) list += fmt::format(" and {} more", in_file.size() - 8);
    const std::string& path = p.files[file].path;
    out += fmt::format("{}{} {} {}", out.empty() ? "" : "; ", path.substr(path.find_last_of('/') + 1),
                       in_file.size() == 1 ? "line" : "lines", list);
  }
  return out;
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
    } else if (auto r = parse_rule(n)) {
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

namespace {

/// Every check on file `f` of `project`, into `report`.
void audit_file(const Project& project, const SourceFile& f, AuditReport& report) {
  const auto& ignored = report.ignored;
  std::vector<Finding> found;
  Sink sink(project, f, found);
  check_wave64(sink);
  check_launches(sink);
  check_transpose_blocks(sink);
  check_code(sink);
  check_arch(sink);
  check_libs(sink);
  check_macros(sink);
  const auto quiet = suppressions(f, report.notes);
  FileSummary summary = summarize(project, f);
  std::sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
  });
  // One finding a rule and thing in a file: later places of the same thing become its `also` lines.
  std::map<std::pair<RuleId, std::string>, std::size_t> first;
  for (auto& finding : found) {
    if (ignored.count(finding.rule)) continue;
    if (auto it = quiet.find(finding.line); it != quiet.end() && it->second.count(finding.rule)) {
      ++report.suppressed;
      continue;
    }
    const auto key = std::make_pair(finding.rule, finding.same.empty() ? finding.why : finding.same);
    if (auto it = first.find(key); it != first.end()) {
      Finding& kept = report.findings[it->second];
      if (finding.line != kept.line &&
          std::find(kept.also.begin(), kept.also.end(), finding.line) == kept.also.end())
        kept.also.push_back(finding.line);
      continue;
    }
    first.emplace(key, report.findings.size());
    ++summary.findings[finding.rule];
    report.findings.push_back(std::move(finding));
  }
  report.files.push_back(std::move(summary));
}

}  // namespace

std::vector<std::vector<std::size_t>> translation_units(const std::vector<std::pair<std::string, std::string>>& sources) {
  std::vector<std::string> normal;
  std::vector<std::vector<std::size_t>> direct(sources.size());
  for (const auto& [path, text] : sources) normal.push_back(normal_path(path));
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const LexedFile lexed = lex(sources[i].second);
    for (const Directive& d : lexed.directives) {
      if (d.name != "include") continue;
      for (std::size_t t = d.first; t < d.end && t < lexed.tokens.size(); ++t) {
        const Token& tok = lexed.tokens[t];
        if (tok.kind != TokenKind::header_name && tok.kind != TokenKind::string) continue;
        if (tok.text.size() < 3) break;
        const auto k = resolve_include(normal, i, tok.text.substr(1, tok.text.size() - 2));
        if (k != std::string::npos && k != i) direct[i].push_back(k);
        break;
      }
    }
  }
  // Files joined by an #include, either way, are one unit: a header is read with the files that
  // include it (what they define before it, the conditions they include it under).
  std::vector<std::size_t> group(sources.size());
  for (std::size_t i = 0; i < group.size(); ++i) group[i] = i;
  const auto root = [&](std::size_t i) {
    while (group[i] != i) i = group[i] = group[group[i]];
    return i;
  };
  for (std::size_t i = 0; i < direct.size(); ++i)
    for (std::size_t k : direct[i]) group[root(i)] = root(k);
  std::map<std::size_t, std::vector<std::size_t>> by_root;
  for (std::size_t i = 0; i < sources.size(); ++i) by_root[root(i)].push_back(i);
  std::vector<std::vector<std::size_t>> units;
  for (auto& [r, files] : by_root) units.push_back(std::move(files));
  std::sort(units.begin(), units.end());
  return units;
}

AuditReport audit_project(const Project& project, const std::set<RuleId>& ignored) {
  AuditReport report;
  report.ignored = ignored;
  for (const SourceFile& f : project.files) audit_file(project, f, report);
  return report;
}

Result<AuditReport> run(const AuditRequest& options) {
  auto ignored = parse_rule_names(options.ignore);
  if (!ignored) return Error{"--ignore " + ignored.error().message + "; `dcukit port audit --rules` lists the rules"};
  auto files = expand_paths(options.paths);
  if (!files) return files.error();
  // Each file is audited in its own translation unit (itself and the audited files it includes),
  // so that its macros and constants are its own: what else is audited changes nothing.
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& path : *files) {
    auto text = util::read_file(path, util::kSourceInput);
    if (!text) return text.error();
    sources.emplace_back(path, std::move(*text));
  }
  const auto switches = hip_switches_with(options.hip_switches);
  AuditReport report;
  report.ignored = *ignored;
  // Each input's project and its place in it, so that the report keeps the order of the inputs.
  std::vector<Project> projects;
  std::vector<std::pair<std::size_t, std::size_t>> place(sources.size());
  for (const auto& unit : translation_units(sources)) {
    std::vector<std::pair<std::string, std::string>> part;
    for (std::size_t j = 0; j < unit.size(); ++j) {
      part.push_back(sources[unit[j]]);
      place[unit[j]] = {projects.size(), j};
    }
    projects.push_back(make_project(std::move(part), switches));
  }
  for (const auto& [unit, j] : place) audit_file(projects[unit], projects[unit].files[j], report);
  report.run_info = core::collect_run_info("dcukit port audit", options.command);
  return report;
}

}  // namespace dcukit::port
