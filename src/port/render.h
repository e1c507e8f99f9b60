#pragma once
// Renderers of the port results: the audit as compiler-style lines plus summary tables, as JSON,
// and as SARIF 2.1.0 (GitHub code scanning, editors); the rule list; the translation summary.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "port/types.h"
#include "util/result.h"

namespace dcukit::port {

/// "The same at lines 40, 52 (3 places in this file)." for a finding that repeats; empty if it does not.
std::string also_lines(const Finding& finding);

/// Each finding as `file:line:col: severity: [rule] why`, its code and fix; then the findings per
/// rule and the hipify-like statistics per file (core/table.h).
std::string render_text(const AuditReport& report);
/// The same as Markdown tables: one row a finding, then the tables per rule and per file.
std::string render_markdown(const AuditReport& report);

/// The findings, per-file statistics and totals as JSON.
nlohmann::ordered_json to_json(const AuditReport& report);
/// Reads to_json's document back; the error says what is not an audit report.
Result<AuditReport> audit_from_json(std::string_view text);

/// A SARIF 2.1.0 log: one run, every rule in tool.driver.rules, one result a finding.
std::string render_audit_sarif(const AuditReport& report);

/// Every rule: id, severity, what it finds, why it breaks, the fix (`--rules`).
std::string render_rules_text();

/// Per file: what was converted (hipify's "CONVERTED refs"), what was not, and where it went.
std::string render_text(const TranslateReport& report);
/// One table row a file: converted, made mask-free, left untranslated.
std::string render_markdown(const TranslateReport& report);
/// The translation as JSON: run_info, then each file with its conversions and what was left.
nlohmann::ordered_json to_json(const TranslateReport& report);
/// Reads that document back; the error says what is not a translation report.
Result<TranslateReport> translate_from_json(std::string_view text);

}  // namespace dcukit::port
