#pragma once
// p2p's latency cases: a pointer chase by one thread of the destination through the source's
// memory (nvbandwidth's device_to_device_latency_sm), the time a step in microseconds.
#include <string>
#include <vector>

#include "bench/group.h"

namespace dcukit::bench {

/// A pair of members whose destination can read the source's memory (peer access, or src == dst).
struct Readable {
  std::size_t src, dst;
  std::string link;  ///< as the pair's copies name it
};

/// A "latency" case for each pair of `pairs`.
void run_latency(GroupContext& ctx, const std::vector<Readable>& pairs, std::vector<Measurement>& out);

}  // namespace dcukit::bench
