#pragma once
// A small HTTP server for a supervisor's or an exporter's own endpoints (/healthz, /metrics):
// cpp-httplib behind a narrow interface, with a fixed number of worker threads and a bounded
// queue (a flood of connections waits in the kernel's backlog instead of growing memory), read
// and write deadlines on every connection, and a stop() that returns once every worker is done.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "util/result.h"

namespace dcukit::util {

/// What a handler is asked.
struct HttpServerRequest {
  std::string method;                         ///< "GET", "HEAD"
  std::string path;                           ///< without the query
  std::map<std::string, std::string> params;  ///< the query's parameters
};

/// What a handler answers.
struct HttpServerReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

/// Answers one request; called on a worker thread, so it must be thread-safe and quick.
using HttpHandler = std::function<HttpServerReply(const HttpServerRequest&)>;

/// Where and how to serve.
struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                                ///< 0: any free port (see HttpServer::port())
  int threads = 4;                             ///< worker threads
  std::size_t max_queue = 64;                  ///< accepted connections waiting for a worker
  std::chrono::milliseconds io_timeout{5000};  ///< per read and per write on a connection
  std::size_t max_request_bytes = 64 * 1024;   ///< larger request bodies are refused
};

class HttpServer {
public:
  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();  ///< stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Serves GET (and HEAD) of exactly `path` with `handler`. Call before start().
  void get(const std::string& path, HttpHandler handler);
  /// Binds and starts serving on a thread of its own; the error names the address and why
  /// (in use, not an address of this host, permission).
  Status start();
  /// The port bound (useful with port 0); 0 before start().
  int port() const;
  /// Stops accepting, lets the workers finish their connection (bounded by io_timeout) and joins.
  /// Safe to call twice and from a signal-driven shutdown path (not from a handler).
  void stop();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dcukit::util
