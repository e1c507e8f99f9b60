#pragma once
// Renderers of the port results: the audit as compiler-style lines plus summary tables, as JSON,
// and as SARIF 2.1.0 (GitHub code scanning, editors); the rule list; the translation summary.
#include <string>

#include "port/port.h"

namespace dcukit::port {

/// "The same at lines 40, 52 (3 places in this file)." for a finding that repeats; empty if it does not.
std::string also_lines(const Finding& finding);

/// Each finding as `file:line:col: severity: [rule] why`, its code and fix; then the findings per
/// rule and the hipify-like statistics per file (core/table.h).
std::string render_audit_text(const AuditReport& report);

/// The findings, per-file statistics and totals as JSON.
nlohmann::ordered_json to_json(const AuditReport& report);

/// A SARIF 2.1.0 log: one run, every rule in tool.driver.rules, one result a finding.
std::string render_audit_sarif(const AuditReport& report);

/// Every rule: id, severity, what it finds, why it breaks, the fix (`--rules`).
std::string render_rules_text();

/// Per file: what was converted (hipify's "CONVERTED refs"), what was not, and where it went.
std::string render_translate_text(const TranslateReport& report);

}  // namespace dcukit::port
