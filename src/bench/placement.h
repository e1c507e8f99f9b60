#pragma once
// Each measured rate placed against what a healthy card of its SKU measures (core/expected.h):
// normal, low or high, and for a low one the likely causes from the run's own facts (the link
// as trained against the card's, host memory on another NUMA node than the card).
#include "bench/types.h"
#include "telemetry/types.h"

namespace dcukit::bench {

/// Where `m`, measured on `d`, sits (no_reference for a failed or skipped case, a latency, or
/// a card or case the data does not know).
core::Placed place(const DeviceReport& d, const Measurement& m);

/// Sets Measurement::placed on every device's measurements.
void place_all(Report& report);

/// The low cases' likely causes again, with what a telemetry reading adds for each device (by
/// its PCI address): clocks under their maximum, throttle reasons, other processes on the card,
/// the link's maximum where the peak data has none.
void explain_low(Report& report, const telemetry::Snapshot& reading);

/// Whether any case was placed low.
bool any_low(const Report& report);

}  // namespace dcukit::bench
