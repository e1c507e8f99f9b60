#pragma once
// Warp-synchronous code: where a warp-size constant fixed at 32 is a hazard. A constant that only
// splits work (`for (i = lane; i < n; i += WARP_SIZE)`) is right at any width; one that a shuffle,
// a vote, a lane mask or a cooperative-groups tile shares a scope with decides which lanes talk.
#include <cstddef>

#include "port/project.h"
#include "port/syntax.h"

namespace dcukit::port {

/// Whether stream position k calls a warp-synchronous primitive: a shuffle, a vote, a *_sync
/// intrinsic, a lane mask (__lanemask_lt), a tile's .shfl/.ballot, or a function or macro of the
/// files whose body calls one (facts.warp_sync_names).
bool warp_synchronous_at(const StreamView& v, std::size_t k, const ProjectFacts& facts);

/// The scopes (function bodies) of one stream that hold warp-synchronous code.
std::set<int> warp_synchronous_scopes(const StreamView& v, const ProjectFacts& facts);

/// Fills facts.warp_sync_names (to a fixed point over calls) and each warp-size constant's
/// sync_uses: its uses in function bodies and macros that hold warp-synchronous code.
void find_warp_synchronous_code(Project& p);

}  // namespace dcukit::port
