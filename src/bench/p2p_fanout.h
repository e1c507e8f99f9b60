#pragma once
// p2p's fan-out cases (nvbandwidth's one_to_all_memcpy_ce and all_to_one_memcpy_ce), over three
// or more devices: each device copying to all the others at once, and all the others to it.
#include <cstdint>
#include <vector>

#include "bench/group.h"

namespace dcukit::bench {

/// Appends a "one to all" and an "all to one" case for each member; nothing under 3 members.
void run_fanout(GroupContext& ctx, std::uint64_t bytes, std::vector<Measurement>& out);

}  // namespace dcukit::bench
