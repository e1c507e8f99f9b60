#pragma once
// A small HTTP server for a supervisor's or an exporter's own endpoints (/healthz, /metrics),
// built to stay up under clients that are slow, many or hostile. One thread accepts and reads
// every request head without blocking, each under one deadline for the whole request (not per
// read: a client sending a byte every few seconds is cut off at the deadline) and with a limit
// on connections per client address; only complete requests reach the fixed pool of workers
// that run the handlers, so slow clients never hold a worker. Replies close the connection
// (what Prometheus and probes expect of an exporter). cpp-httplib 0.11, used before, had only
// per-read timeouts: four clients sending a byte at a time stalled every scrape.
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
  int threads = 4;                             ///< worker threads (they run handlers only)
  std::size_t max_queue = 64;                  ///< complete requests waiting for a worker
  std::chrono::milliseconds io_timeout{5000};  ///< the whole request's deadline, and the reply's
  std::size_t max_request_bytes = 16 * 1024;   ///< a longer request head is refused (431)
  std::size_t max_connections = 256;           ///< connections held at once; more wait in the backlog
  std::size_t max_per_client = 16;             ///< connections from one address; more are refused (503)
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
  /// The connections accepted and not yet closed, from every address (for tests and metrics).
  std::size_t open_connections() const;
  /// Stops accepting, lets the workers finish their reply (bounded by io_timeout) and joins.
  /// Safe to call twice and from a signal-driven shutdown path (not from a handler).
  void stop();

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace dcukit::util
