#pragma once
// Shared by the test_port_*.cpp files: audit sources held in memory, and read findings briefly.
#include <string>
#include <utility>
#include <vector>

#include "port/audit.h"
#include "port/project.h"

namespace porttest {

using Sources = std::vector<std::pair<std::string, std::string>>;

/// A project of in-memory files with the default HIP switches (plus `extra`).
inline dcukit::port::Project project(Sources files, const std::vector<std::string>& extra = {}) {
  return dcukit::port::make_project(std::move(files), dcukit::port::hip_switches_with(extra));
}

/// The audit of in-memory files.
inline dcukit::port::AuditReport audit(Sources files, const std::vector<std::string>& extra = {}) {
  const auto p = project(std::move(files), extra);
  return dcukit::port::audit_project(p, {});
}

/// The audit of one file named t.cu. A snippet stands for code below a file's includes, so
/// api.implicit-runtime (a .cu without cuda_runtime.h) is left out; its tests use Sources.
inline dcukit::port::AuditReport audit(const std::string& source) {
  auto r = audit(Sources{{"t.cu", source}});
  std::erase_if(r.findings, [](const dcukit::port::Finding& f) { return f.rule == dcukit::port::RuleId::api_implicit_runtime; });
  return r;
}

/// "rule:line" for every finding, in order (":col" with `columns`).
inline std::vector<std::string> hits(const dcukit::port::AuditReport& r, bool columns = false) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) {
    std::string s = std::string(dcukit::port::to_string(f.rule)) + ":" + std::to_string(f.line);
    if (columns) s += ":" + std::to_string(f.column);
    out.push_back(s);
  }
  return out;
}

/// The finding of `rule` at `line`, or nullptr.
inline const dcukit::port::Finding* at(const dcukit::port::AuditReport& r, dcukit::port::RuleId rule, int line) {
  for (const auto& f : r.findings)
    if (f.rule == rule && f.line == line) return &f;
  return nullptr;
}

/// Findings of one rule.
inline int count(const dcukit::port::AuditReport& r, dcukit::port::RuleId rule) {
  int n = 0;
  for (const auto& f : r.findings) n += f.rule == rule;
  return n;
}

}  // namespace porttest
