#pragma once
// Work that may never return (a device call stuck in the driver) run on a thread of its own and
// watched from the caller's: the caller waits until the work ends, or until its watcher names a
// reason to give up, and then leaves the thread behind. What the work touches must be owned by
// the work (shared_ptr captures), since it may outlive the call.
#include <chrono>
#include <functional>
#include <string>

namespace dcukit::util {

/// Runs `work` on a new thread and polls `give_up` every `poll` until the work is done (then
/// joins it and returns "") or `give_up` returns a reason (then detaches the thread and returns
/// the reason). A thread that cannot be started is reported as the reason.
std::string run_watched(std::function<void()> work, const std::function<std::string()>& give_up,
                        std::chrono::milliseconds poll = std::chrono::milliseconds(50));

/// A watcher that gives up `timeout` after its creation, with `reason`.
std::function<std::string()> give_up_after(std::chrono::milliseconds timeout, std::string reason);

}  // namespace dcukit::util
