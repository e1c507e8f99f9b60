#pragma once
// An owned file descriptor, closed when it goes out of scope: the one RAII holder for the raw
// descriptors that util's readers, sockets and load's event loops open.
#include <unistd.h>

namespace dcukit::util {

class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : m_fd(fd) {}
  ~UniqueFd() {
    if (m_fd >= 0) ::close(m_fd);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      if (m_fd >= 0) ::close(m_fd);
      m_fd = other.release();
    }
    return *this;
  }
  int get() const { return m_fd; }
  /// Gives the descriptor up without closing it.
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd;
};

}  // namespace dcukit::util
