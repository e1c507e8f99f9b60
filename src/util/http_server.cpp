#include "util/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "util/http_request_head.h"
#include "util/unique_fd.h"

namespace dcukit::util {
namespace serve {

using Clock = std::chrono::steady_clock;

/// A connection whose request head is being read.
struct Pending {
  int fd = -1;
  std::string peer;
  Clock::time_point deadline;
  std::string head;
  bool complete = false;
};

/// A complete request waiting for a worker.
struct Ready {
  int fd = -1;
  std::string peer;
  std::string head;
};

std::string peer_of(const sockaddr_storage& a) {
  char host[NI_MAXHOST] = {};
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&a), sizeof a, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
    return "?";
  return host;
}

/// Writes all of `data` before `deadline`; false when the client does not take it in time.
bool write_all(int fd, std::string_view data, Clock::time_point deadline) {
  while (!data.empty()) {
    const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) return false;
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace serve

using namespace serve;

struct HttpServer::Impl {
  HttpServerOptions options;
  std::vector<std::pair<std::string, HttpHandler>> routes;
  UniqueFd listener;
  int port = 0;
  int wake[2] = {-1, -1};
  std::thread acceptor;
  std::vector<std::thread> workers;
  mutable std::mutex mutex;
  std::condition_variable work_ready;
  std::deque<Ready> ready;
  std::map<std::string, std::size_t> per_client;  ///< connections held, by address
  bool stopping = false;
  std::mutex stop_mutex;

  ~Impl() {
    for (int fd : wake)
      if (fd >= 0) close(fd);
  }

  void poke() {
    const char c = 1;
    (void)!write(wake[1], &c, 1);
  }

  void release(const std::string& peer) {
    std::lock_guard lock(mutex);
    if (auto it = per_client.find(peer); it != per_client.end() && --it->second == 0) per_client.erase(it);
  }

  void refuse(int fd, const std::string& peer, int status, const char* why) {
    const std::string reply = fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}\n",
        status, reason_phrase(status), std::strlen(why) + 1, why);
    (void)send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
    release(peer);
  }

  void accept_loop();
  void read_ready(Pending& c);
  void worker();
  std::string answer(const std::string& head, bool& head_only);
};

void HttpServer::Impl::read_ready(Pending& c) {
  char buf[4096];
  for (;;) {
    const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.head.append(buf, static_cast<std::size_t>(n));
      if (c.head.find("\r\n\r\n") != std::string::npos || c.head.find("\n\n") != std::string::npos) {
        c.complete = true;
        return;
      }
      if (c.head.size() > options.max_request_bytes) {
        refuse(c.fd, c.peer, 431, "request head too large");
        c.fd = -1;
        return;
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close(c.fd);  // closed by the client, or an error
    release(c.peer);
    c.fd = -1;
    return;
  }
}

void HttpServer::Impl::accept_loop() {
  std::vector<Pending> conns;
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard lock(mutex);
      if (stopping) break;
    }
    // Hand complete requests to the workers while there is room.
    {
      std::lock_guard lock(mutex);
      for (auto& c : conns)
        if (c.fd >= 0 && c.complete && ready.size() < options.max_queue) {
          ready.push_back(Ready{c.fd, c.peer, std::move(c.head)});
          c.fd = -1;
          work_ready.notify_one();
        }
    }
    const auto now = Clock::now();
    for (auto& c : conns)
      if (c.fd >= 0 && !c.complete && now >= c.deadline) {
        refuse(c.fd, c.peer, 408, "the request did not arrive within the deadline");
        c.fd = -1;
      }
    std::erase_if(conns, [](const Pending& c) { return c.fd < 0; });

    fds.clear();
    fds.push_back({wake[0], POLLIN, 0});
    const bool room = conns.size() < options.max_connections;
    fds.push_back({room ? listener.get() : -1, POLLIN, 0});
    auto next = now + std::chrono::seconds(1);
    for (const auto& c : conns) {
      fds.push_back({c.complete ? -1 : c.fd, POLLIN, 0});
      if (!c.complete && c.deadline < next) next = c.deadline;
    }
    const auto wait = std::max<long long>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count() + 1);
    if (poll(fds.data(), fds.size(), static_cast<int>(wait)) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      char drain[64];
      while (read(wake[0], drain, sizeof drain) > 0) {
      }
    }
    for (std::size_t i = 0; i < conns.size(); ++i)
      if (fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) read_ready(conns[i]);
    if (room && (fds[1].revents & POLLIN)) {
      for (int k = 0; k < 64 && conns.size() < options.max_connections; ++k) {
        sockaddr_storage addr{};
        socklen_t len = sizeof addr;
        const int fd = accept4(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        const std::string peer = peer_of(addr);
        bool over = false;
        {
          std::lock_guard lock(mutex);
          over = ++per_client[peer] > options.max_per_client;
        }
        if (over) {
          refuse(fd, peer, 503, "too many connections from this address");
          continue;
        }
        conns.push_back(Pending{fd, peer, Clock::now() + options.io_timeout, {}, false});
      }
    }
  }
  for (auto& c : conns)
    if (c.fd >= 0) {
      close(c.fd);
      release(c.peer);
    }
}

std::string HttpServer::Impl::answer(const std::string& head, bool& head_only) {
  const RequestHead r = parse_request_head(head);
  head_only = r.method == "HEAD";
  HttpServerReply reply{400, "text/plain; charset=utf-8", "bad request\n"};
  if (r.ok && r.method != "GET" && r.method != "HEAD") {
    reply = {405, "text/plain; charset=utf-8", "only GET and HEAD\n"};
  } else if (r.ok) {
    reply = {404, "text/plain; charset=utf-8", "not found\n"};
    for (const auto& [path, handler] : routes)
      if (path == r.path) {
        try {
          reply = handler(HttpServerRequest{r.method, r.path, r.params});
        } catch (...) {
          reply = {500, "text/plain; charset=utf-8", "internal error\n"};
        }
        break;
      }
  }
  std::string out = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", reply.status,
      reason_phrase(reply.status), reply.content_type, reply.body.size());
  if (!head_only) out += reply.body;
  return out;
}

void HttpServer::Impl::worker() {
  for (;;) {
    Ready job;
    {
      std::unique_lock lock(mutex);
      work_ready.wait(lock, [&] { return !ready.empty() || stopping; });
      if (ready.empty()) return;
      job = std::move(ready.front());
      ready.pop_front();
    }
    poke();  // room in the queue: the acceptor may hand on more
    bool head_only = false;
    const std::string reply = answer(job.head, head_only);
    (void)write_all(job.fd, reply, Clock::now() + options.io_timeout);
    shutdown(job.fd, SHUT_WR);
    close(job.fd);
    release(job.peer);
  }
}

HttpServer::HttpServer(HttpServerOptions options) : m_impl(std::make_unique<Impl>()) {
  m_impl->options = std::move(options);
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::get(const std::string& path, HttpHandler handler) {
  m_impl->routes.emplace_back(path, std::move(handler));
}

Status HttpServer::start() {
  auto& impl = *m_impl;
  if (impl.acceptor.joinable()) return {};
  const auto& o = impl.options;
  const std::string where = o.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", o.host, o.port)
                                                                  : fmt::format("{}:{}", o.host, o.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(o.port);
  if (const int rc = getaddrinfo(o.host.empty() ? nullptr : o.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return Error{fmt::format("cannot listen on {}: {}; pick another address or port", where, gai_strerror(rc))};
  int err = 0;
  for (addrinfo* a = found; a; a = a->ai_next) {
    UniqueFd s{socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol)};
    if (s.get() < 0) {
      err = errno;
      continue;
    }
    // SO_REUSEADDR alone: a second server on a port already listened on is an error.
    const int yes = 1;
    (void)setsockopt(s.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(s.get(), a->ai_addr, a->ai_addrlen) != 0 || listen(s.get(), 128) != 0) {
      err = errno;
      continue;
    }
    impl.listener = std::move(s);
    break;
  }
  freeaddrinfo(found);
  if (impl.listener.get() < 0)
    return Error{fmt::format("cannot listen on {}: {}; pick another address or port", where,
                             err == EADDRINUSE ? "the address is in use"
                             : err             ? std::strerror(err)
                                               : "bind failed")};
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(impl.listener.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  impl.port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                          : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (pipe2(impl.wake, O_CLOEXEC | O_NONBLOCK) != 0)
    return Error{fmt::format("cannot listen on {}: {}", where, std::strerror(errno))};
  impl.stopping = false;
  for (int i = 0; i < std::max(o.threads, 1); ++i) impl.workers.emplace_back([&impl] { impl.worker(); });
  impl.acceptor = std::thread([&impl] { impl.accept_loop(); });
  return {};
}

int HttpServer::port() const {
  return m_impl->port;
}

std::size_t HttpServer::open_connections() const {
  std::lock_guard lock(m_impl->mutex);
  std::size_t n = 0;
  for (const auto& [peer, count] : m_impl->per_client) n += count;
  return n;
}

void HttpServer::stop() {
  auto& impl = *m_impl;
  std::lock_guard lock(impl.stop_mutex);
  if (!impl.acceptor.joinable()) return;
  {
    std::lock_guard l(impl.mutex);
    impl.stopping = true;
  }
  impl.poke();
  impl.work_ready.notify_all();
  impl.acceptor.join();
  for (auto& t : impl.workers) t.join();
  impl.workers.clear();
  for (auto& r : impl.ready) close(r.fd);
  impl.ready.clear();
  impl.listener = UniqueFd{};
}

}  // namespace dcukit::util
