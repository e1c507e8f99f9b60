#pragma once
// Timing enqueued work on a device between two events, and choosing how much of it makes a
// batch of a given length: what the GEMM, memory and transfer checks share.
#include <functional>
#include <string>

#include "stress/checks.h"

namespace dcukit::stress {

/// Milliseconds that `count` calls of `enqueue` took on the device, between two events.
Result<double> timed_ms(DeviceRun& r, int count, const std::function<Status()>& enqueue);

/// How many calls of `enqueue` take about `target_ms`, found by doubling (the runs count as
/// warm-up); 0 with `error` set when a call failed.
int calibrate(DeviceRun& r, const std::function<Status()>& enqueue, double target_ms, Status& error);

/// "612.3 TFLOPS", "4372.5 GB/s".
std::string rate_text(double rate, const std::string& unit);

}  // namespace dcukit::stress
