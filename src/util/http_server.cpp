#include "util/http_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace dcukit::util {
namespace {

/// httplib's task queue with a fixed number of workers and a bounded backlog: enqueue() waits
/// while the backlog is full, so the accept loop stops accepting and the kernel queues instead.
class BoundedPool : public httplib::TaskQueue {
public:
  BoundedPool(int threads, std::size_t max_queue) : m_max(std::max<std::size_t>(max_queue, 1)) {
    for (int i = 0; i < std::max(threads, 1); ++i) m_workers.emplace_back([this] { work(); });
  }
  ~BoundedPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(m_mutex);
    m_space.wait(lock, [&] { return m_jobs.size() < m_max || m_shutdown; });
    m_jobs.push_back(std::move(fn));  // after shutdown the job still runs: it closes its socket
    m_ready.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(m_mutex);
      if (m_shutdown && m_workers.empty()) return;
      m_shutdown = true;
    }
    m_ready.notify_all();
    m_space.notify_all();
    for (auto& t : m_workers)
      if (t.joinable()) t.join();
    m_workers.clear();
  }

private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [&] { return !m_jobs.empty() || m_shutdown; });
        if (m_jobs.empty()) return;
        job = std::move(m_jobs.front());
        m_jobs.pop_front();
      }
      m_space.notify_one();
      job();
    }
  }

  std::size_t m_max;
  std::mutex m_mutex;
  std::condition_variable m_ready, m_space;
  std::deque<std::function<void()>> m_jobs;
  std::vector<std::thread> m_workers;
  bool m_shutdown = false;
};

}  // namespace

struct HttpServer::Impl {
  HttpServerOptions options;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::mutex stop_mutex;
};

HttpServer::HttpServer(HttpServerOptions options) : m_impl(std::make_unique<Impl>()) {
  m_impl->options = std::move(options);
  auto& s = m_impl->server;
  const auto& o = m_impl->options;
  const int threads = o.threads;
  const std::size_t queue = o.max_queue;
  s.new_task_queue = [threads, queue] { return new BoundedPool(threads, queue); };
  s.set_read_timeout(o.io_timeout);
  s.set_write_timeout(o.io_timeout);
  s.set_keep_alive_timeout(std::max<time_t>(1, static_cast<time_t>(o.io_timeout.count() / 1000)));
  s.set_keep_alive_max_count(100);
  s.set_payload_max_length(o.max_request_bytes);
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content("internal error\n", "text/plain; charset=utf-8");
  });
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::get(const std::string& path, HttpHandler handler) {
  // httplib matches patterns as regular expressions; our paths are literal.
  std::string pattern;
  for (char c : path) {
    if (std::strchr(".^$|()[]{}*+?\\", c)) pattern += '\\';
    pattern += c;
  }
  m_impl->server.Get(pattern, [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    HttpServerRequest r{req.method, req.path, {}};
    for (const auto& [k, v] : req.params) r.params.emplace(k, v);
    HttpServerReply reply = handler(r);
    res.status = reply.status;
    res.set_content(std::move(reply.body), reply.content_type.c_str());
  });
}

Status HttpServer::start() {
  auto& impl = *m_impl;
  if (impl.thread.joinable()) return {};
  const auto& o = impl.options;
  const std::string where = o.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", o.host, o.port)
                                                                  : fmt::format("{}:{}", o.host, o.port);
  // httplib's default also sets SO_REUSEPORT, with which a second server binds a port already
  // listened on and the two share its connections: SO_REUSEADDR alone makes that an error.
  impl.server.set_socket_options([](int sock) {
    const int yes = 1;
    (void)setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  errno = 0;
  if (o.port == 0) {
    impl.port = impl.server.bind_to_any_port(o.host);
    if (impl.port <= 0) impl.port = 0;
  } else if (impl.server.bind_to_port(o.host, o.port)) {
    impl.port = o.port;
  }
  if (impl.port == 0) {
    const int e = errno;
    return Error{fmt::format("cannot listen on {}: {}; pick another address or port", where,
                             e == EADDRINUSE ? "the address is in use"
                             : e             ? std::strerror(e)
                                             : "bind failed")};
  }
  impl.thread = std::thread([&impl] { impl.server.listen_after_bind(); });
  // stop() before the loop runs would be lost: wait (briefly) until it does.
  for (int i = 0; i < 2000 && !impl.server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return {};
}

int HttpServer::port() const {
  return m_impl->port;
}

void HttpServer::stop() {
  std::lock_guard lock(m_impl->stop_mutex);
  if (!m_impl->thread.joinable()) return;
  m_impl->server.stop();
  m_impl->thread.join();
}

}  // namespace dcukit::util
