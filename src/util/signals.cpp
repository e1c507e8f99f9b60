#include "util/signals.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

namespace dcukit::util {

namespace {

// CLOCK_MONOTONIC in nanoseconds; clock_gettime is async-signal-safe.
long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace

void on_stop_signal(int sig) {
  auto& t = StopToken::process();
  const long long now = monotonic_ns();
  long long unset = 0;
  t.m_stop_ns.compare_exchange_strong(unset, now);  // first, so that a repeat on another thread sees it
  int expected = 0;
  if (t.m_signal.compare_exchange_strong(expected, sig)) {
    const char byte = 1;
    (void)!write(t.m_pipe[1], &byte, 1);
    return;
  }
  // The same stop delivered twice (timeout(1) signals the child, then its process group).
  if (now - t.m_stop_ns.load() < std::chrono::nanoseconds(StopToken::kRepeatWindow).count()) return;
  // A later signal: the user insists. End now with this signal's default action.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);  // pending until this handler returns, then the default action ends the process
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
  long long unset = 0;
  m_stop_ns.compare_exchange_strong(unset, monotonic_ns());
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
  m_stop_ns.store(0);
  install(SIGINT, on_stop_signal);
  install(SIGTERM, on_stop_signal);
}

const char* StopToken::describe() const {
  const int sig = stop_signal();
  return sig == SIGINT ? "interrupted by SIGINT" : sig == SIGTERM ? "interrupted by SIGTERM" : "interrupted";
}

}  // namespace dcukit::util
