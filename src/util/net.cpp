#include "util/net.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <curl/curl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <memory>

#include "util/redact.h"
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
  const std::string shown = redact(url);  // the errors name the URL, never its password
  if (url.substr(0, 7) != "http://" && url.substr(0, 8) != "https://")
    return Error{fmt::format("'{}' is not an http:// or https:// URL", shown)};
  for (const char c : url)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return Error{fmt::format("'{}' holds a space or a control character; percent-encode it", shown)};
  // libcurl's own URL parser: the URL is read as the requests will read it.
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> u(curl_url(), &curl_url_cleanup);
  if (!u) return Error{"libcurl: out of memory"};
  const CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, std::string(url).c_str(), CURLU_NON_SUPPORT_SCHEME);
  switch (rc) {
    case CURLUE_OK:
      break;
    case CURLUE_NO_HOST:
      return Error{fmt::format("'{}' names no host", shown)};
    case CURLUE_BAD_IPV6:
      return Error{fmt::format("'{}': an IPv6 host is written in brackets, http://[::1]:8000", shown)};
    case CURLUE_BAD_PORT_NUMBER:
      return Error{fmt::format("'{}' has no valid port; the port is 1 to 65535", shown)};
    default:
      return Error{fmt::format("'{}' is not a valid URL ({}); write http://HOST:PORT/PATH", shown, curl_url_strerror(rc))};
  }
  const auto part = [&](CURLUPart what, unsigned flags) -> std::string {
    char* text = nullptr;
    if (curl_url_get(u.get(), what, &text, flags) != CURLUE_OK || !text) return {};
    std::string out = text;
    curl_free(text);
    return out;
  };
  std::string host = part(CURLUPART_HOST, 0);
  if (host.empty()) return Error{fmt::format("'{}' names no host", shown)};
  if (host.front() == '[') {
    if (host.size() <= 2 || host.back() != ']')
      return Error{fmt::format("'{}': an IPv6 host is written in brackets, http://[::1]:8000", shown)};
    host = host.substr(1, host.size() - 2);
  } else if (host.find_first_of("[]:") != std::string::npos) {
    return Error{fmt::format("'{}' has a bracket out of place; an IPv6 host is written http://[::1]:8000", shown)};
  }
  const std::string port_text = part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
  int port = -1;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port < 0 || port > 65535)
    return Error{fmt::format("'{}' has no valid port; the port is 1 to 65535", shown)};
  if (port == 0) return Error{fmt::format("'{}' has port 0; a server's port is 1 to 65535", shown)};
  return HostPort{host, port};
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
