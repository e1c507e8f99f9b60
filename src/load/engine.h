#pragma once
// The load engine: it issues requests in a closed or open loop (see LoadShape) and returns one
// RequestRecord per request. The streams are spread over one or more event-loop threads
// (load/shard.h: epoll driving libcurl's multi interface, a timerfd for sends at absolute
// times), so that thousands of streams are read as they arrive rather than one core behind.
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "load/body.h"
#include "load/records.h"
#include "util/http.h"
#include "util/result.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::load {

/// Where and how requests are sent.
struct EngineConfig {
  std::string url;  ///< the full endpoint, e.g. http://h:8000/v1/completions
  BodyOptions body;
  std::vector<std::string> headers;                             ///< extra "Name: value" lines (the API key included)
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  ///< per request, start to end
  util::Tls tls;                                                ///< how https peers are checked
  int threads = 0;         ///< event-loop threads (0: one for every kStreamsPerShard streams, see shard_count)
  bool keep_text = false;  ///< keep each reply's text (--save-detailed)
  const util::StopToken* stop = nullptr;  ///< the user's stop (SIGINT, SIGTERM): requests in flight are cancelled
};

/// A snapshot for live progress, taken a few times a second.
struct Progress {
  std::size_t issued = 0, completed = 0, failed = 0, in_flight = 0;
  double elapsed_s = 0;
  std::size_t total = 0;  ///< the requests the run sends (0: bounded by duration_s only)
  double duration_s = 0;  ///< how long the run issues requests (0: bounded by total only)
  bool finished = false;  ///< the run's last snapshot
};

/// Called on the thread that called Engine::run with a progress snapshot, about every 250 ms.
using ProgressFn = std::function<void(const Progress&)>;

class Shard;

/// Runs load levels against one endpoint. Not thread-safe; one run at a time. Each event loop
/// keeps its connections across runs, so a warm-up leaves them open for the levels after it.
class Engine {
public:
  explicit Engine(EngineConfig config);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Sends prompts (cycled when the shape asks for more requests than there are prompts) under
  /// shape and returns when every issued request has finished or timed out, or the stop token
  /// fired (the requests in flight are then recorded as cancelled). Fails only when the engine
  /// itself cannot run (epoll, curl); failed requests are data in the records.
  Result<RunRecords> run(const std::vector<Prompt>& prompts, const LoadShape& shape, const ProgressFn& progress = {});

  /// Asks a running run() to stop issuing and cancel the requests in flight (another thread).
  void request_stop() { m_stop.store(true); }

private:
  EngineConfig m_config;
  std::atomic<bool> m_stop{false};
  std::vector<std::unique_ptr<Shard>> m_shards;
};

}  // namespace dcukit::load
