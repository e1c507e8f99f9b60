#include "load/engine.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "load/shard.h"
#include "util/host.h"

namespace dcukit::load {

void RunShared::started() {
  issued.fetch_add(1, std::memory_order_relaxed);
  const int now = in_flight.fetch_add(1, std::memory_order_relaxed) + 1;
  int peak = peak_in_flight.load(std::memory_order_relaxed);
  while (now > peak && !peak_in_flight.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void RunShared::finished(bool ok) {
  (ok ? completed : failed).fetch_add(1, std::memory_order_relaxed);
  in_flight.fetch_sub(1, std::memory_order_relaxed);
}

std::size_t shard_count(const LoadShape& shape, int threads, int usable_cpus) {
  const std::size_t streams = shape.max_in_flight().value_or(SIZE_MAX);  // SIZE_MAX: unbounded
  std::size_t n = 0;
  if (threads > 0) {
    n = static_cast<std::size_t>(threads);
  } else {
    const std::size_t by_cpus = static_cast<std::size_t>(std::max(1, usable_cpus / 2));
    const std::size_t by_streams =
        streams == SIZE_MAX ? by_cpus : (streams + kStreamsPerShard - 1) / static_cast<std::size_t>(kStreamsPerShard);
    n = std::min(by_cpus, by_streams);
  }
  return std::max<std::size_t>(1, std::min(n, streams));
}

int shard_cap(int total, std::size_t count, std::size_t index) {
  if (total <= 0 || count == 0) return 0;
  const auto t = static_cast<std::size_t>(total);
  return static_cast<int>(t / count + (index < t % count ? 1 : 0));
}

Engine::Engine(EngineConfig config) : m_config(std::move(config)) {
  util::curl_global_once();
}

Engine::~Engine() = default;

Result<RunRecords> Engine::run(const std::vector<Prompt>& prompts, const LoadShape& shape, const ProgressFn& progress) {
  if (prompts.empty()) return Error{"no prompts to send"};
  m_stop.store(false);
  const std::size_t n = shard_count(shape, m_config.threads, util::usable_cpu_count());
  while (m_shards.size() < n) m_shards.push_back(std::make_unique<Shard>());

  const int total_cap = shape.concurrency_cap();
  std::vector<ShardPlan> plans(n);
  for (std::size_t i = 0; i < n; ++i) plans[i] = ShardPlan{i, n, shard_cap(total_cap, n, i)};
  RunShared shared(Clock::now(), m_stop, m_config.stop);
  std::vector<std::optional<Result<RunRecords>>> results(n);
  std::mutex mu;
  std::condition_variable cv;
  std::size_t running = n;
  auto snapshot = [&] {
    const double elapsed = std::chrono::duration<double>(Clock::now() - shared.t0).count();
    return Progress{shared.issued.load(),
                    shared.completed.load(),
                    shared.failed.load(),
                    static_cast<std::size_t>(std::max(0, shared.in_flight.load())),
                    elapsed,
                    shape.count,
                    shape.count > 0 ? 0 : shape.duration_s,
                    false};
  };

  std::vector<std::thread> threads;
  threads.reserve(n);
  std::optional<Error> spawn_error;
  for (std::size_t i = 0; i < n; ++i) {
    try {
      threads.emplace_back([&, i] {
        auto r = m_shards[i]->run(m_config, prompts, shape, plans[i], shared);
        std::lock_guard<std::mutex> lock(mu);
        results[i] = std::move(r);
        --running;
        cv.notify_all();
      });
    } catch (const std::system_error& e) {
      spawn_error = Error{std::string("cannot start a load thread: ") + e.what()};
      shared.abort.store(true);
      std::lock_guard<std::mutex> lock(mu);
      running -= n - i;
      break;
    }
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    while (running > 0) {
      cv.wait_for(lock, std::chrono::milliseconds(250));
      if (progress && running > 0) {
        lock.unlock();
        progress(snapshot());
        lock.lock();
      }
    }
  }
  for (auto& t : threads) t.join();
  if (progress) {
    Progress last = snapshot();
    last.finished = true;
    progress(last);
  }
  if (spawn_error) return *spawn_error;

  RunRecords out;
  for (auto& r : results) {
    if (!r || !*r) return r ? (*r).error() : Error{"a load thread ended without a result"};
    auto& part = (*r)->requests;
    out.requests.insert(out.requests.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  }
  std::sort(out.requests.begin(), out.requests.end(),
            [](const RequestRecord& a, const RequestRecord& b) { return a.index < b.index; });
  for (const auto& r : out.requests) out.duration_ms = std::max(out.duration_ms, r.done_ms);
  out.peak_in_flight = shared.peak_in_flight.load();
  out.cancelled = shared.stop_asked();
  out.event_loops = static_cast<int>(n);
  return out;
}

}  // namespace dcukit::load
