#pragma once
// Where a server of ours (guard's and the exporter's /metrics) may listen: ADDR:PORT, and an
// address other hosts can reach only when the user asked for it, since the endpoints name the
// host's devices and service. One check, one message, for every command that listens.
#include <string_view>

#include "util/net.h"
#include "util/result.h"

namespace dcukit::util {

/// Parses --listen's text; an address that is not loopback is refused unless `listen_any`. The
/// error names the text and the fix (--listen-any, or 127.0.0.1).
Result<HostPort> parse_listen(std::string_view text, bool listen_any);

}  // namespace dcukit::util
