#include "util/net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "util/unique_fd.h"

namespace dcukit::util {
namespace {

Result<int> parse_port(std::string_view text, std::string_view whole) {
  int port = -1;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || port < 0 || port > 65535)
    return Error{fmt::format("'{}' has no valid port; write HOST:PORT with a port from 0 to 65535", whole)};
  return port;
}


}  // namespace

Result<HostPort> parse_host_port(std::string_view text) {
  HostPort hp;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Error{fmt::format("'{}' is not [IPV6]:PORT", text)};
    hp.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return Error{fmt::format("'{}' has no port; write HOST:PORT (\"127.0.0.1:9401\")", text)};
    hp.host = std::string(text.substr(0, colon));
    if (hp.host.find(':') != std::string::npos)
      return Error{fmt::format("'{}': put an IPv6 address in brackets, \"[::1]:9401\"", text)};
    port_text = text.substr(colon + 1);
  }
  auto port = parse_port(port_text, text);
  if (!port) return port.error();
  hp.port = *port;
  return hp;
}

Result<HostPort> url_host_port(std::string_view url) {
  int default_port = 0;
  std::string_view rest;
  if (url.substr(0, 7) == "http://") {
    default_port = 80;
    rest = url.substr(7);
  } else if (url.substr(0, 8) == "https://") {
    default_port = 443;
    rest = url.substr(8);
  } else {
    return Error{fmt::format("'{}' is not an http:// or https:// URL", url)};
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (rest.empty()) return Error{fmt::format("'{}' names no host", url)};
  const bool bracketed = rest.front() == '[';
  const auto colon = rest.rfind(':');
  const bool has_port = colon != std::string_view::npos && (!bracketed || rest.find(']') < colon);
  if (!has_port) {
    HostPort hp{std::string(bracketed ? rest.substr(1, rest.size() - 2) : rest), default_port};
    return hp;
  }
  return parse_host_port(rest);
}

bool is_loopback_host(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "ip6-localhost") return true;
  in_addr a{};
  if (inet_pton(AF_INET, std::string(host).c_str(), &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
  return false;
}

Status tcp_accepts(const HostPort& address, std::chrono::milliseconds timeout) {
  const std::string where = fmt::format("{}:{}", address.host, address.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(address.port);
  if (const int rc = getaddrinfo(address.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return Error{fmt::format("cannot resolve {}: {}", address.host, gai_strerror(rc))};
  std::string last = "no address";
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    UniqueFd s{socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol)};
    if (s.get() < 0) continue;
    if (connect(s.get(), ai->ai_addr, ai->ai_addrlen) == 0) {
      freeaddrinfo(found);
      return {};
    }
    if (errno != EINPROGRESS) {
      last = std::strerror(errno);
      continue;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{s.get(), POLLOUT, 0};
    int r;
    do r = poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
    while (r < 0 && errno == EINTR);
    if (r == 0) {
      last = "timed out";
      continue;
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(s.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (r > 0 && err == 0) {
      freeaddrinfo(found);
      return {};
    }
    last = std::strerror(err ? err : errno);
  }
  freeaddrinfo(found);
  return Error{fmt::format("nothing accepts on {}: {}", where, last)};
}

}  // namespace dcukit::util
