#pragma once
// The audit over a loaded Project, shared by audit() and the translator (which annotates the
// lines the audit flags); and the parsing of rule lists (--ignore, inline comments).
#include <set>
#include <string>
#include <vector>

#include "port/port.h"
#include "port/project.h"

namespace dcukit::port {

/// Runs every rule on every file, applies inline suppressions and `ignored`, and counts.
AuditReport audit_project(const Project& project, const std::set<RuleId>& ignored);

/// The files of `sources` (path, text) joined by their #includes (resolved beside the includer,
/// else by the path's tail), either way: each group is audited on its own, so that the macros and
/// constants of one project do not reach the files of another audited beside it.
std::vector<std::vector<std::size_t>> translation_units(const std::vector<std::pair<std::string, std::string>>& sources);

/// The rules named (ids, or a family such as `wave64.*`); the error names the unknown one.
Result<std::set<RuleId>> parse_rule_names(const std::vector<std::string>& names);

/// The macros a HIP build defines: the defaults and the user's.
std::vector<std::string> hip_switches_with(const std::vector<std::string>& extra);

}  // namespace dcukit::port
