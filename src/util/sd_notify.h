#pragma once
// systemd's readiness protocol without libsystemd: one datagram of "KEY=value" lines to the
// Unix socket named by $NOTIFY_SOCKET ("@name" for an abstract socket). Outside systemd the
// variable is unset and every call is a no-op, so a service may call it unconditionally.
#include <string>

#include "util/result.h"

namespace dcukit::util {

/// Sends `state` ("READY=1", "STATUS=starting the service", "STOPPING=1", "WATCHDOG=1") to
/// `socket_path`, or to $NOTIFY_SOCKET when empty. Success (and nothing sent) when there is no
/// socket to send to; an Error naming the socket when the send failed.
Status sd_notify(const std::string& state, const std::string& socket_path = "");

/// The watchdog interval systemd asks for ($WATCHDOG_USEC, when $WATCHDOG_PID is unset or ours),
/// in microseconds; 0 when none.
long long sd_watchdog_usec();

}  // namespace dcukit::util
