#pragma once
// The renderers of a Snapshot: a text table like hy-smi's and nvidia-smi's summary (one row a
// device, "-" where no source gave the figure), the JSON of the contract, and CSV rows for
// plotting (one a device a reading, with the reading's timestamp).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/run_info.h"
#include "telemetry/types.h"
#include "util/result.h"

namespace dcukit::telemetry {

/// The device table, then processes, topology, checks, facts, which source gave what, warnings.
std::string render_text(const Snapshot& s);
/// The same tables as Markdown.
std::string render_markdown(const Snapshot& s);
/// The reading's warnings, one "warning: ..." line each (diagnostics: the CLI prints them on stderr).
std::string render_warnings(const Snapshot& s);

/// The JSON contract: {"source", "timestamp", "devices": [{"index", "name", "bus_id", ...,
/// "figure_sources": {...}}], "topology", "checks", "facts", "sources", "warnings"}; a figure no
/// source gave is null.
nlohmann::ordered_json to_json(const Snapshot& s);
/// A reading as the document `dcukit telemetry --json` writes: run_info first, then the contract.
nlohmann::ordered_json to_json(const core::RunInfo& run_info, const Snapshot& s);
/// Reads a reading back (either document; run_info is not needed); the error says what is not
/// a telemetry reading.
Result<Snapshot> from_json(std::string_view text);
/// One device as JSON (the contract's device object).
nlohmann::ordered_json to_json(const DeviceState& d);

/// CSV: with `header`, the column names first; then one row a device: timestamp, index, then
/// every scalar figure in contract order.
std::string render_csv(const Snapshot& s, bool header);

}  // namespace dcukit::telemetry
