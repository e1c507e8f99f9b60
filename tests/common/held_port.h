#pragma once
// A TCP port on loopback that this test process holds: bound and listening, so that code under
// test finds it in use (and this process as its holder) until release() or the destructor.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace testutil {

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
