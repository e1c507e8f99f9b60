#pragma once
// Addresses as users write them ("127.0.0.1:9401", "[::1]:8000", "http://host:8000/v1") and the
// one socket call a supervisor needs before HTTP: does anything accept on host:port, within a
// deadline. Nothing dcukit-specific.
#include <chrono>
#include <string>
#include <string_view>

#include "util/result.h"

namespace dcukit::util {

/// A host and a TCP port.
struct HostPort {
  std::string host;  ///< a name or an address, IPv6 without brackets
  int port = 0;
};

/// Parses "HOST:PORT", "[V6]:PORT" or ":PORT" (any address); the port in 0..65535.
/// The error names the text and the expected form.
Result<HostPort> parse_host_port(std::string_view text);

/// The host and port of an http:// or https:// URL (80 or 443 when the URL names none).
Result<HostPort> url_host_port(std::string_view url);

/// True for localhost, 127.0.0.0/8 and ::1: an address only this host can reach.
bool is_loopback_host(std::string_view host);

/// Connects to host:port and closes again; an Error (refused, timed out, unresolvable) naming
/// the address when no connection was accepted within `timeout`.
Status tcp_accepts(const HostPort& address, std::chrono::milliseconds timeout);

}  // namespace dcukit::util
