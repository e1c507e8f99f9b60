#pragma once
// `dcukit port`: the engine's entry points. An audit reads CUDA sources and reports what breaks
// on HIP, on 64-lane wavefronts and on DCU; a translation renames CUDA names to HIP ones from
// the one mapping table (data/hip_map.tsv) and marks the lines the audit flags.
#include "port/types.h"
#include "util/result.h"

namespace dcukit::port {

/// Audits the files; errors (exit 2 at the CLI) name a missing or unreadable path or an unknown rule.
Result<AuditReport> run(const AuditRequest& request);

/// Translates and writes the files; errors name the input or output that failed.
Result<TranslateReport> run(const TranslateRequest& request);

}  // namespace dcukit::port
