#pragma once
// p2p's latency cases: a pointer chase by one thread of the destination through the source's
// memory (nvbandwidth's device_to_device_latency_sm), the time a step in microseconds.
#include <string>
#include <utility>
#include <vector>

#include "bench/group.h"

namespace dcukit::bench {

/// A "latency" case for each (src, dst) of `pairs` (members; the destination reads the source's
/// memory, so each pair needs peer access or src == dst), with `links[k]` as its link.
void run_latency(GroupContext& ctx, const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                 const std::vector<std::string>& links, std::vector<Measurement>& out);

}  // namespace dcukit::bench
