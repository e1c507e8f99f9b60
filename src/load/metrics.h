#pragma once
// A load level's figures from its requests' records: the latency summaries, throughput and
// goodput (docs/metrics.md defines each).
#include <vector>

#include "load/types.h"

namespace dcukit::load {

/// Computes a level's figures from its records (moved in and kept); percentiles are taken at
/// each value of `percentiles` (0 to 100).
LevelReport summarize_level(RunRecords records, const Slo& slo, const std::vector<double>& percentiles);

/// Tokens in each content chunk: the server's own counts when every chunk carried usage
/// (--continuous-usage); otherwise an estimate, the request's token count spread over its chunks
/// in proportion to their bytes (each chunk at least one token when there are enough tokens).
std::vector<int> tokens_per_chunk(const RequestRecord& r);

}  // namespace dcukit::load
