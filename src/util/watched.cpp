#include "util/watched.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace dcukit::util {

std::string run_watched(std::function<void()> work, const std::function<std::string()>& give_up,
                        std::chrono::milliseconds poll) {
  struct Done {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
  };
  auto state = std::make_shared<Done>();
  std::thread worker;
  try {
    worker = std::thread([state, work = std::move(work)] {
      work();
      std::lock_guard lock(state->mutex);
      state->done = true;
      state->cv.notify_all();
    });
  } catch (const std::system_error& e) {
    return std::string("cannot start a thread: ") + e.what();
  }
  for (;;) {
    {
      std::unique_lock lock(state->mutex);
      if (state->cv.wait_for(lock, poll, [&] { return state->done; })) break;
    }
    if (std::string why = give_up(); !why.empty()) {
      worker.detach();  // stuck where it cannot be stopped: left behind
      return why;
    }
  }
  worker.join();
  return {};
}

std::function<std::string()> give_up_after(std::chrono::milliseconds timeout, std::string reason) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  return [end, reason = std::move(reason)] { return std::chrono::steady_clock::now() >= end ? reason : std::string(); };
}

}  // namespace dcukit::util
