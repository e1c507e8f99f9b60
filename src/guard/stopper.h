#pragma once
// Stopping a service completely: SIGTERM to its whole process group, a drain period, SIGKILL
// to the group, then proof that it is gone: no process of the group left, no descendant that
// escaped the group (found as guard's adopted children, as the holder of the port, or as a new
// holder of a GPU device file), the port free, and the device memory back near its level
// before the start (seed 004: DCU memory is not freed at once after a crash). Every wait has a
// deadline; what is still there at the end is reported, not waited for.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "guard/types.h"
#include "util/process.h"

namespace dcukit::guard {

/// A process found outside the service's group after the group was stopped.
struct Escapee {
  pid_t pid = 0;
  std::string cmdline;
  std::string found_by;  ///< "descendant", "port", "device"
  bool ours = false;     ///< a descendant of guard: it was ended
  bool ended = false;    ///< it is gone now
};

/// The device's memory after a stop.
struct DeviceRelease {
  int device = 0;
  std::uint64_t baseline_bytes = 0;  ///< used before the service started
  std::uint64_t used_bytes = 0;      ///< used at the last reading
  bool released = false;
  double waited_seconds = 0;
  std::string error;  ///< a reading failed
};

/// What to check and how long to wait.
struct StopPlan {
  milliseconds drain{30'000};
  milliseconds release_timeout{60'000};
  int port = 0;  ///< the service's local port; 0 when the URL is not on this host
  std::optional<int> device;
  DeviceMemoryReader read_memory;
  std::optional<std::uint64_t> device_baseline;  ///< used bytes before the start
  std::uint64_t slack_bytes = 0;
  std::set<pid_t> device_holders_before;  ///< holders of GPU files before the start (not the service's)
};

/// What the stop found.
struct StopOutcome {
  util::ExitStatus status;
  bool killed = false;  ///< SIGKILL was needed
  double seconds = 0;
  std::vector<pid_t> group_left;  ///< members of the group still there at the end
  std::vector<Escapee> escaped;
  bool port_free = true;
  std::vector<pid_t> port_holders;  ///< who still holds the port at the end
  std::optional<DeviceRelease> device;
  /// Nothing of the service is left: no member, no escapee alive, the port and memory free.
  bool complete() const;
};

/// Stops `process` (its group) as the plan says. Blocks for at most about drain + 5 s +
/// release_timeout.
StopOutcome stop_service(util::Process& process, const StopPlan& plan);

/// Processes other than ours (and the service's group) holding GPU device files now.
std::set<pid_t> gpu_file_holders();

}  // namespace dcukit::guard
