#pragma once
// `dcukit load compare A.json B.json`: two runs side by side with the change in each metric.
// Reads dcukit's JSON and, for the shared field names, `vllm bench serve` result files too.
#include <string>
#include <vector>

#include "util/result.h"
#include "core/table.h"

namespace dcukit::load {

/// One table per pair of levels (a sweep compares level i with level i). Errors name the file.
Result<std::vector<core::Table>> compare_files(const std::string& a_path, const std::string& b_path);

}  // namespace dcukit::load
