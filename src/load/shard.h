#pragma once
// One event loop of the load engine: an epoll set driving one libcurl multi handle through its
// socket API, and a timerfd for sends at absolute times. The Engine runs one Shard a thread and
// gives each its share of the streams; the shards of a run share a start time, the request
// numbering and the counters that progress and the in-flight peak are read from.
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "load/engine.h"
#include "load/exchange.h"
#include "util/result.h"
#include "util/signals.h"

namespace dcukit::load {

/// What the shards of one run share. Counters are relaxed atomics: progress reads them a few
/// times a second, and peak_in_flight is the only figure taken from them.
struct RunShared {
  RunShared(Clock::time_point start, const std::atomic<bool>& stop_flag, const util::StopToken* stop_token)
      : t0(start), stop(stop_flag), token(stop_token) {}
  Clock::time_point t0;              ///< every record's times count from here
  const std::atomic<bool>& stop;     ///< a stop asked by the program (Engine::request_stop)
  const util::StopToken* token;      ///< the user's stop (SIGINT, SIGTERM); may be null
  std::atomic<bool> abort{false};    ///< a shard failed: the others stop too
  std::atomic<std::size_t> next{0};  ///< closed loops claim request numbers here
  std::atomic<std::size_t> issued{0}, completed{0}, failed{0};
  std::atomic<int> in_flight{0}, peak_in_flight{0};

  /// The user or the program asked to stop.
  bool stop_asked() const { return stop.load(std::memory_order_relaxed) || (token && token->stop_requested()); }
  bool stopping() const { return stop_asked() || abort.load(std::memory_order_relaxed); }
  /// Counts a request handed to curl and raises the peak.
  void started();
  /// Counts a request finished (ok or not).
  void finished(bool ok);
};

/// One shard's part of a run: it is shard `index` of `count`. `cap` is its share of the streams
/// (closed loop: its concurrency; open loop: its share of --max-concurrency, 0 = none). An open
/// loop's shard sends requests index, index + count, ... at their times in the one schedule.
struct ShardPlan {
  std::size_t index = 0;
  std::size_t count = 1;
  int cap = 0;
};

/// How many event-loop threads a run uses: `threads` when the user set it, otherwise one for
/// every kStreamsPerShard streams, at most one for every two usable CPUs (the other half is
/// left to curl's resolver, the kernel's network stack and, on loopback, the server). Never
/// more shards than streams or requests, never fewer than one.
std::size_t shard_count(const LoadShape& shape, int threads, int usable_cpus);
inline constexpr int kStreamsPerShard = 256;

/// Splits `total` streams over `count` shards; shard i gets total / count, plus one while the
/// remainder lasts. total = 0 (no cap) gives 0 to each.
int shard_cap(int total, std::size_t count, std::size_t index);

/// The persistent part of one event loop: the multi handle (and so its connection cache), the
/// epoll and timer descriptors and the pool of idle exchanges. Connections persist across runs,
/// so a warm-up leaves them open for the levels after it.
class Shard {
public:
  Shard();
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  /// Runs this shard's part of a run to the end; times count from shared.t0. Fails only when
  /// the loop cannot run (epoll, curl); failed requests are data in the records.
  Result<RunRecords> run(const EngineConfig& config, const std::vector<Prompt>& prompts, const LoadShape& shape,
                         const ShardPlan& plan, RunShared& shared);

  struct State;

private:
  std::unique_ptr<State> m_state;
};

}  // namespace dcukit::load
