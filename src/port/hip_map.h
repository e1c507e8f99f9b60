#pragma once
// The one CUDA-to-HIP name table (data/hip_map.tsv, compiled in). `dcukit port translate` reads
// it, and a unit test checks src/device/hip/vendor.h against it, so that the project never holds
// two mappings that disagree.
#include <map>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::port {

/// One row of the table.
struct HipName {
  std::string hip;   ///< empty: no HIP equivalent (the note says what to do)
  std::string kind;  ///< runtime, driver, type, enum, define, header, device, sync, namespace, or a library
  std::string note;
};

/// CUDA name (or header path, for kind "header") -> its row.
using HipMap = std::map<std::string, HipName, std::less<>>;

/// Parses the table's text (tab-separated: cuda, hip or '-', kind, note; '#' comments); the error
/// names the line of a malformed or repeated entry.
Result<HipMap> parse_hip_map(std::string_view tsv);

/// The compiled-in table (parsed once; a malformed table is a build defect and the tests catch it).
const HipMap& hip_map();

}  // namespace dcukit::port
