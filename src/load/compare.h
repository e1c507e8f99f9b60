#pragma once
// `dcukit load compare A.json B.json`: two runs side by side, each level of A paired with the
// level of B at the same load (concurrency, rate and cap), with the change in each metric, and
// what differs between the two runs (model, dataset, lengths, settings, host). Reads dcukit's
// JSON and `vllm bench serve` result files.
#include <string>
#include <vector>

#include "core/table.h"
#include "util/result.h"

namespace dcukit::load {

/// The tables of the comparison: what differs between the runs, then one table a paired level.
/// An Error (bad input) names the file that cannot be read or holds no load results.
Result<std::vector<core::Table>> compare_files(const std::string& a_path, const std::string& b_path);

}  // namespace dcukit::load
