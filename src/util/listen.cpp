#include "util/listen.h"

#include <fmt/format.h>

namespace dcukit::util {

Result<HostPort> parse_listen(std::string_view text, bool listen_any) {
  auto listen = parse_host_port(text);
  if (!listen) return Error{"--listen: " + listen.error().message};
  if (!listen_any && !is_loopback_host(listen->host))
    return Error{
        fmt::format("--listen {} is reachable from other hosts; pass --listen-any to allow it, or listen "
                    "on 127.0.0.1",
                    text)};
  return *listen;
}

}  // namespace dcukit::util
