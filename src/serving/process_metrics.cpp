#include "serving/process_metrics.h"

#include <chrono>

#include "util/procfs.h"

namespace dcukit::serving {
namespace {

/// When this process started, as seconds since the epoch (taken at the first call).
double start_time() {
  static const double t =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return t;
}
[[maybe_unused]] const double kInitialised = start_time();

}  // namespace

void write_process_metrics(TextWriter& w) {
  const util::SelfUsage u = util::self_usage();
  w.family("process_open_fds", MetricType::gauge, "Number of open file descriptors");
  w.sample("process_open_fds", {}, u.open_fds);
  w.family("process_resident_memory_bytes", MetricType::gauge, "Resident memory size in bytes");
  w.sample("process_resident_memory_bytes", {}, static_cast<double>(u.rss_bytes));
  w.family("process_threads", MetricType::gauge, "Number of OS threads in the process");
  w.sample("process_threads", {}, u.threads);
  w.family("process_start_time_seconds", MetricType::gauge, "Start time of the process since the Unix epoch in seconds");
  w.sample("process_start_time_seconds", {}, start_time());
}

}  // namespace dcukit::serving
