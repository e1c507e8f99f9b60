#pragma once
// TCP ports on loopback for tests: ports nobody listens on now, and one that this test process
// holds (bound and listening, so that code under test finds it in use, and this process as its
// holder, until release() or the destructor).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace testutil {

/// `n` ports no one listens on now, all different: each stays bound until the last is read, so
/// that a port handed out for a URL nothing serves yet is not handed out again to a server.
inline std::vector<int> free_ports(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
    fds.push_back(fd);
    ports.push_back(port);
  }
  for (const int fd : fds) ::close(fd);
  return ports;
}

/// A port no one listens on now: bound to 0 and closed, so that a server started next gets one
/// of its own (a real server that takes --port, such as llama.cpp's).
inline int free_port() {
  return free_ports(1).front();
}

class HeldPort {
public:
  HeldPort() {
    m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (m_fd < 0 || bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(m_fd, 4) != 0 ||
        getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
      return;
    m_port = ntohs(a.sin_port);
  }
  ~HeldPort() { release(); }
  HeldPort(const HeldPort&) = delete;
  HeldPort& operator=(const HeldPort&) = delete;

  /// The port held; 0 when the socket could not be bound (the test should fail on that).
  int port() const { return m_port; }
  void release() {
    if (m_fd >= 0) close(m_fd);
    m_fd = -1;
  }

private:
  int m_fd = -1;
  int m_port = 0;
};

}  // namespace testutil
