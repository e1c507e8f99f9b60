#pragma once
// Bounds for the tests that check a deadline, a stop or a refusal is honoured at all, never how
// fast: the peer in such a test stalls for kStall (or forever), far past every deadline the tests
// set; kNoHang lies between the two. A loaded or sanitized machine stays far below kNoHang, and
// only a real hang reaches it, with a message, before ctest's own timeout. How fast dcukit reacts
// is measured in benchmarks (docs/results/), not here.
#include <chrono>

namespace testutil {

inline constexpr std::chrono::seconds kNoHang{30};
inline constexpr std::chrono::seconds kStall{120};

}  // namespace testutil
