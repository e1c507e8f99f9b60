#pragma once
// smoke.*: does each GPU compute, and compute right? A small kernel (fill and add over 1 Mi
// floats) and a small GEMM (256^3 fp32 of small integers, exact in every precision mode) per
// device through the bench backends, each result checked, the whole under one deadline. The
// only file of doctor that uses device/.
#include <chrono>
#include <string>
#include <vector>

#include "doctor/types.h"

namespace dcukit::device {
class Backend;
}

namespace dcukit::doctor {

/// What the smoke test found, and whether a device call is still stuck past the deadline.
struct SmokeResult {
  std::vector<Finding> findings;
  bool hung = false;
};

/// Runs the kernel and the GEMM on every device of `backend` (named `name` in the findings).
/// Blocks; each wait inside has `timeout` as its limit.
std::vector<Finding> smoke_backend(device::Backend& backend, const std::string& name,
                                   std::chrono::milliseconds timeout);

/// Loads the GPU backends and runs smoke_backend on each on a worker thread; past `timeout` the
/// worker is left behind and the result says hung. A host without a GPU backend gives one skip.
SmokeResult run_smoke(std::chrono::milliseconds timeout);

}  // namespace dcukit::doctor
