#pragma once
// The levels as named sets of checks, each with its share of the time (DCGM's -r 1..4, RVS's
// modules): 1 in seconds, 2 in about two minutes, 3 in about fifteen, 4 for hours (burn-in).
// --duration scales the timed checks to fit; --only keeps some.
#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "stress/types.h"
#include "util/result.h"

namespace dcukit::stress {

/// One timed step of a level: the check and its time (0: as long as it takes, a few seconds).
struct Step {
  CheckKind kind;
  std::chrono::milliseconds time{0};
};

/// The steps of `level` (1 to 4), scaled to `duration` where given, filtered by `only`. power is
/// judged during the GEMM step (its load), so asking for power keeps that step. The error names
/// a level outside 1-4 or an --only that leaves nothing of the level.
Result<std::vector<Step>> plan_level(int level, const std::optional<std::chrono::seconds>& duration,
                                     const std::vector<CheckKind>& only);

/// The level's own total, for --help and the report.
std::chrono::seconds level_duration(int level);

}  // namespace dcukit::stress
