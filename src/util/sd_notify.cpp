#include "util/sd_notify.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace dcukit::util {

Status sd_notify(const std::string& state, const std::string& socket_path) {
  std::string path = socket_path;
  if (path.empty()) {
    const char* env = std::getenv("NOTIFY_SOCKET");
    if (!env || !*env) return {};
    path = env;
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path || (path[0] != '/' && path[0] != '@'))
    return Error{fmt::format("NOTIFY_SOCKET '{}' is not a socket path or an abstract name", path)};
  std::memcpy(addr.sun_path, path.data(), path.size());
  if (path[0] == '@') addr.sun_path[0] = '\0';
  const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size());
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{fmt::format("cannot notify {}: socket: {}", path, std::strerror(errno))};
  const ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&addr), len);
  const int e = errno;
  close(fd);
  if (sent != static_cast<ssize_t>(state.size()))
    return Error{fmt::format("cannot notify {}: {}", path, std::strerror(e))};
  return {};
}

long long sd_watchdog_usec() {
  const char* usec = std::getenv("WATCHDOG_USEC");
  if (!usec) return 0;
  if (const char* pid = std::getenv("WATCHDOG_PID"); pid && std::atoll(pid) != getpid()) return 0;
  const long long v = std::atoll(usec);
  return v > 0 ? v : 0;
}

}  // namespace dcukit::util
