#pragma once
// The renderers of a Snapshot: a text table like hy-smi's and nvidia-smi's summary (one row a
// device, "-" where no source gave the figure), the JSON of the contract, and CSV rows for
// plotting (one a device a reading, with the reading's timestamp).
#include <nlohmann/json.hpp>
#include <string>

#include "telemetry/types.h"

namespace dcukit::telemetry {

/// The device table, then processes, topology, checks, facts, which source gave what, warnings.
std::string render_text(const Snapshot& s);
/// The reading's warnings, one "warning: ..." line each (diagnostics: the CLI prints them on stderr).
std::string render_warnings(const Snapshot& s);

/// The JSON contract: {"source", "timestamp", "devices": [{"index", "name", "bus_id", ...,
/// "figure_sources": {...}}], "topology", "checks", "facts", "sources", "warnings"}; a figure no
/// source gave is null.
nlohmann::ordered_json to_json(const Snapshot& s);
/// One device as JSON (the contract's device object).
nlohmann::ordered_json to_json(const DeviceState& d);

/// CSV: with `header`, the column names first; then one row a device: timestamp, index, then
/// every scalar figure in contract order.
std::string render_csv(const Snapshot& s, bool header);

}  // namespace dcukit::telemetry
