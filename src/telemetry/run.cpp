#include "telemetry/run.h"

#include <fmt/format.h>

#include <thread>

#include "telemetry/capture.h"
#include "telemetry/collector.h"
#include "util/signals.h"

namespace dcukit::telemetry {

Result<Report> run(const Request& r) {
  Report out;
  const auto take = [&](const Snapshot& s) {
    out.any_device = out.any_device || !s.devices.empty();
    const bool first = out.readings++ == 0;
    if (r.on_reading && !r.on_reading(s, first)) out.written = false;
  };
  if (!r.from.empty()) {
    if (r.every.count() > 0 || r.count > 0)
      return Error{fmt::format("--from {} reads a file once; --watch and --count are for the live host", r.from)};
    auto snap = read_capture_file(r.from);
    if (!snap) return snap.error();
    take(*snap);
    return out;
  }
  Collector collector(r.collect);
  const bool watching = r.every.count() > 0 || r.count > 1;
  const auto interval = r.every.count() > 0 ? r.every : std::chrono::milliseconds(1000);
  for (;;) {
    take(collector.sample());
    if (!watching || (r.count > 0 && out.readings >= r.count)) break;
    if (r.stop) {
      if (r.stop->wait_for(interval)) break;
    } else {
      std::this_thread::sleep_for(interval);
    }
  }
  return out;
}

}  // namespace dcukit::telemetry
