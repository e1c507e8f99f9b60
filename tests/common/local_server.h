#pragma once
// A real HTTP server on a loopback port (cpp-httplib), answering whatever each test sets up on
// http(): unit tests of the HTTP clients (serving's probe, load's tokenizer) talk to it as to a
// server. Started in the constructor, stopped and joined in the destructor.
#include <httplib.h>

#include <chrono>
#include <string>
#include <thread>

namespace testutil {

class LocalServer {
public:
  /// Binds a free port on 127.0.0.1 and returns once the server is listening.
  LocalServer() {
    m_port = m_server.bind_to_any_port("127.0.0.1");
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LocalServer() {
    m_server.stop();
    m_thread.join();
  }
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  /// Where a test registers its handlers (Get, Post, ...).
  httplib::Server& http() { return m_server; }
  /// The port it listens on.
  int port() const { return m_port; }
  /// "http://127.0.0.1:<port>".
  std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

private:
  httplib::Server m_server;
  int m_port = 0;
  std::thread m_thread;
};

}  // namespace testutil
