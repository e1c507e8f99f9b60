#pragma once
// A call that may hang (a vendor library stuck in the driver) run on a worker thread, waited for
// up to a deadline. Past the deadline the caller gets nullopt and goes on; the worker is left
// running, detached, and keeps alive what its function captured (so capture shared_ptrs, never
// references to the caller's locals). The caller must not use what the worker still touches.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace dcukit::telemetry {

/// fn() on a worker thread; its result, or nullopt when it has not returned within `timeout`.
template <class T>
std::optional<T> run_with_deadline(std::function<T()> fn, std::chrono::milliseconds timeout) {
  struct State {
    std::mutex mutex;
    std::condition_variable done_cv;
    std::optional<T> result;
    bool done = false;
  };
  auto state = std::make_shared<State>();
  std::thread worker([state, fn = std::move(fn)]() mutable {
    T value = fn();
    std::lock_guard<std::mutex> lock(state->mutex);
    state->result = std::move(value);
    state->done = true;
    state->done_cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(state->mutex);
  if (!state->done_cv.wait_for(lock, timeout, [&] { return state->done; })) {
    lock.unlock();
    worker.detach();
    return std::nullopt;
  }
  lock.unlock();
  worker.join();
  return std::move(state->result);
}

}  // namespace dcukit::telemetry
