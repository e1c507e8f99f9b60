#pragma once
// Each measured rate placed against what a healthy card of its SKU measures (core/expected.h):
// normal, low or high, and for a low one the likely causes from the run's own facts (the link
// as trained against the card's, host memory on another NUMA node than the card).
#include "bench/types.h"

namespace dcukit::bench {

/// Where `m`, measured on `d`, sits (no_reference for a failed or skipped case, a latency, or
/// a card or case the data does not know).
core::Placed place(const DeviceReport& d, const Measurement& m);

/// Sets Measurement::placed on every device's measurements.
void place_all(Report& report);

}  // namespace dcukit::bench
