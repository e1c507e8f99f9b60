#include "guard/log_pump.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace dcukit::guard {

LogPump::LogPump(std::string path, std::uint64_t max_bytes, int keep) : m_file(std::move(path), max_bytes, keep) {}

LogPump::~LogPump() {
  m_stop = true;
  wake();
  if (m_thread.joinable()) m_thread.join();
  drop_all_pipes();
  for (int fd : m_wake)
    if (fd >= 0) close(fd);
}

Status LogPump::start() {
  {
    std::lock_guard lock(m_mutex);
    if (auto st = m_file.open(); !st) return Error{"--log-file: " + st.message()};
  }
  if (pipe2(m_wake, O_CLOEXEC | O_NONBLOCK) != 0) return Error{fmt::format("pipe: {}", std::strerror(errno))};
  m_thread = std::thread([this] { run(); });
  return {};
}

Result<int> LogPump::new_pipe() {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return Error{fmt::format("cannot make the service's output pipe: {}", std::strerror(errno))};
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  {
    std::lock_guard lock(m_mutex);
    m_fds.push_back(p[0]);
  }
  wake();
  return p[1];
}

void LogPump::drain(int fd) {
  char buf[16384];
  for (int i = 0; i < 64; ++i) {  // at most 1 MiB more from a pipe being dropped
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return;
    (void)m_file.write(std::string_view(buf, static_cast<std::size_t>(n)));
  }
}

void LogPump::drop_old_pipes() {
  std::lock_guard lock(m_mutex);
  while (m_fds.size() > 1) {
    drain(m_fds.front());
    close(m_fds.front());
    m_fds.erase(m_fds.begin());
  }
  wake();
}

void LogPump::drop_all_pipes() {
  std::lock_guard lock(m_mutex);
  for (int fd : m_fds) {
    drain(fd);
    close(fd);
  }
  m_fds.clear();
  wake();
}

void LogPump::note(const std::string& line) {
  std::lock_guard lock(m_mutex);
  (void)m_file.write(line + "\n");
}

std::string LogPump::tail() const {
  std::lock_guard lock(m_mutex);
  return m_file.tail();
}

void LogPump::set_limits(std::uint64_t max_bytes, int keep) {
  std::lock_guard lock(m_mutex);
  m_file.set_limits(max_bytes, keep);
}

void LogPump::wake() {
  if (m_wake[1] >= 0) {
    const char b = 1;
    (void)!write(m_wake[1], &b, 1);
  }
}

void LogPump::run() {
  std::vector<pollfd> fds;
  char buf[16384];
  while (!m_stop) {
    fds.clear();
    fds.push_back({m_wake[0], POLLIN, 0});
    {
      std::lock_guard lock(m_mutex);
      for (int fd : m_fds) fds.push_back({fd, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), 1000) < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      while (read(m_wake[0], buf, sizeof buf) > 0) {
      }
      continue;  // the set of pipes may have changed: poll again on the current one
    }
    std::lock_guard lock(m_mutex);
    for (std::size_t i = 1; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      // Still ours? drop_*() may have closed it (and the number been reused) since the poll.
      auto it = std::find(m_fds.begin(), m_fds.end(), fds[i].fd);
      if (it == m_fds.end()) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        (void)m_file.write(std::string_view(buf, static_cast<std::size_t>(n)));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(fds[i].fd);  // every writer is gone
        m_fds.erase(it);
      }
    }
  }
}

}  // namespace dcukit::guard
