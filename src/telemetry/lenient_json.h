#pragma once
// A JSON reader for what the SMI tools really print: hy-smi's --json misses commas between
// members, repeats the key "" and shares the terminal with stderr ("Error: Failed to show unique
// id ..." before the object, "Warning: One or more commands failed" after it); pastes in tickets
// are cut off mid-object; some values carry units unquoted (41.0C). The reader keeps what it can
// read, says what it had to forgive, and never throws. Well-formed JSON reads as nlohmann would.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::telemetry {

/// What a lenient read found.
struct LenientJson {
  std::vector<nlohmann::ordered_json> values;  ///< each top-level object or array, in order
  std::vector<std::string> outside;            ///< non-empty text lines found outside the JSON
  std::vector<std::string> problems;           ///< what was forgiven: "line 3: missing comma", "cut short"
  bool truncated = false;                      ///< the text ended inside a value
};

/// Reads every top-level object or array of `text`, forgiving the faults above.
LenientJson read_lenient_json(std::string_view text);

}  // namespace dcukit::telemetry
