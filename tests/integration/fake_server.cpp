// A fake OpenAI-compatible server for dcukit load's tests and overhead benchmark. Each event loop
// (fake_loop.cpp) is one thread with an epoll loop and a timer heap, so that thousands of streams
// keep exact token times on a small machine; --threads N runs N of them on one port
// (SO_REUSEPORT: the kernel spreads connections across them) for more streams than one core can
// write. It misbehaves on demand: per run with --mode, per request with the X-Fake-Mode header
// (see fake_protocol.h for the list) or inside the prompt text as "fake-mode=drop". Listens on
// 127.0.0.1 only and prints "PORT <n>" when ready.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fake_loop.h"

namespace {

// A non-blocking socket listening on 127.0.0.1:port (0: any free port), or -1.
int listen_on(int port, bool reuse_port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuse_port) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4096) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int bound_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

}  // namespace

int main(int argc, char** argv) {
  fake::Shared shared;
  fake::Config& c = shared.cfg;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--port")
      c.port = std::stoi(v);
    else if (k == "--threads")
      c.threads = std::stoi(v);
    else if (k == "--ttft-ms")
      c.ttft_ms = std::stod(v);
    else if (k == "--itl-ms")
      c.itl_ms = std::stod(v);
    else if (k == "--mode")
      c.modes = v;
    else if (k == "--api-key")
      c.api_key = v;
    else if (k == "--ready-after-ms")
      c.ready_after_ms = std::stod(v);
    else if (k == "--model")
      c.model = v;
    else {
      std::fprintf(stderr, "fake_server: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (c.threads < 1) {
    std::fprintf(stderr, "fake_server: --threads must be at least 1\n");
    return 2;
  }
  // The first socket picks the port (when --port is 0); the others join it. One loop alone keeps
  // the port to itself (no SO_REUSEPORT).
  const bool reuse_port = c.threads > 1;
  std::vector<int> fds;
  for (int i = 0; i < c.threads; ++i) {
    const int fd = listen_on(fds.empty() ? c.port : bound_port(fds.front()), reuse_port);
    if (fd < 0) {
      std::perror("fake_server: bind/listen");
      return 1;
    }
    fds.push_back(fd);
    shared.counters.push_back(std::make_unique<fake::Counters>());
  }
  std::printf("PORT %d\n", bound_port(fds.front()));
  std::fflush(stdout);
  std::vector<std::thread> others;
  for (std::size_t i = 1; i < fds.size(); ++i) others.emplace_back(fake::run_loop, std::cref(shared), i, fds[i]);
  fake::run_loop(shared, 0, fds.front());
}
