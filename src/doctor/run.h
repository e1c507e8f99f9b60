#pragma once
// doctor's one entry point: gather the facts (the host tree, the GPUs, the toolkits, the Python
// stack), run every check group in order, then the smoke test on a live host.
#include "doctor/types.h"

namespace dcukit::doctor {

/// Examines the host `request` names and returns every finding. Never throws; nothing inside
/// waits without a deadline (the Python probe and the smoke test have their own).
Report run(const Request& request);

}  // namespace dcukit::doctor
