#include "exporter/scraper.h"

#include <fmt/format.h>

#include <condition_variable>
#include <optional>
#include <thread>

#include "util/duration.h"

namespace dcukit::exporter {

/// One reading, shared by the worker that makes it and the scrapes that wait for it.
struct Scraper::Job {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::optional<Result<telemetry::Snapshot>> result;
};

Scraper::Scraper(ReadFn read, std::chrono::milliseconds deadline, std::string source)
    : m_read(std::move(read)), m_deadline(deadline), m_source(std::move(source)) {}

std::shared_ptr<Scraper::Job> Scraper::start_or_join() {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_running) {
    std::lock_guard<std::mutex> job_lock(m_running->mutex);
    if (!m_running->done) return m_running;  // still stuck: wait for it, start no second one
  }
  auto job = std::make_shared<Job>();
  m_running = job;
  // The worker owns a copy of the reader and the job: a reading stuck past the deadline (and past
  // this Scraper) touches nothing else.
  std::thread([job, read = m_read] {
    auto r = read();
    std::lock_guard<std::mutex> job_lock(job->mutex);
    job->result.emplace(std::move(r));
    job->done = true;
    job->done_cv.notify_all();
  }).detach();
  return job;
}

Scrape Scraper::scrape() {
  const auto start = std::chrono::steady_clock::now();
  Scrape s;
  s.source = m_source;
  s.scrapes_total = ++m_scrapes;
  auto job = start_or_join();
  std::unique_lock<std::mutex> lock(job->mutex);
  const bool done = job->done_cv.wait_until(lock, start + m_deadline, [&] { return job->done; });
  s.collect_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!done) {
    s.deadline_missed = true;
    s.error = fmt::format("the device reading did not finish within {} (a driver call or the --from file is stuck)",
                          util::format_duration(m_deadline));
  } else if (!job->result->ok()) {
    s.error = job->result->error().message;
  } else {
    s.snapshot = job->result->value();
  }
  lock.unlock();
  s.collect_errors_total = s.error.empty() ? m_errors.load() : ++m_errors;
  return s;
}

}  // namespace dcukit::exporter
