#include "util/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

namespace dcukit::util {

void on_stop_signal(int sig) {
  auto& t = StopToken::process();
  int expected = 0;
  if (t.m_signal.compare_exchange_strong(expected, sig)) {
    const char byte = 1;
    (void)!write(t.m_pipe[1], &byte, 1);
  }
  // The next SIGINT or SIGTERM takes the default action: the process ends.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGINT, &dfl, nullptr);
  sigaction(SIGTERM, &dfl, nullptr);
}

void on_hangup(int) {
  StopToken::process().m_hangups.fetch_add(1);
}

namespace {

void install(int sig, void (*handler)(int)) {
  struct sigaction sa {};
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(sig, &sa, nullptr);
}

}  // namespace

StopToken::StopToken() {
  if (pipe2(m_pipe, O_CLOEXEC | O_NONBLOCK) != 0) m_pipe[0] = m_pipe[1] = -1;
}

StopToken& StopToken::process() {
  static StopToken* token = [] {
    auto* t = new StopToken();  // never destroyed: a signal may arrive during static destruction
    install(SIGINT, on_stop_signal);
    install(SIGTERM, on_stop_signal);
    install(SIGHUP, on_hangup);
    return t;
  }();
  return *token;
}

void StopToken::request_stop() {
  int expected = 0;
  if (m_signal.compare_exchange_strong(expected, -1)) {
    const char byte = 1;
    (void)!write(m_pipe[1], &byte, 1);
  }
}

bool StopToken::wait_for(std::chrono::milliseconds d) const {
  if (stop_requested()) return true;
  pollfd p{m_pipe[0], POLLIN, 0};
  const auto end = std::chrono::steady_clock::now() + d;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return stop_requested();
    const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (r > 0 || stop_requested()) return stop_requested();
    if (r < 0 && errno != EINTR) return stop_requested();
  }
}

void StopToken::reset() {
  char buf[64];
  while (read(m_pipe[0], buf, sizeof buf) > 0) {
  }
  m_signal.store(0);
  install(SIGINT, on_stop_signal);
  install(SIGTERM, on_stop_signal);
}

}  // namespace dcukit::util
