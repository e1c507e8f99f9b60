// bench::run: validates the request, measures on a thread of its own (measure.cpp) and keeps
// watch from the calling thread for a stop request or a benchmark hung past its deadline.
#include "bench/run.h"

#include "bench/placement.h"
#include "telemetry/collector.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "bench/benchmark.h"
#include "bench/context.h"
#include "bench/group.h"
#include "bench/measure.h"
#include "util/duration.h"
#include "util/watched.h"

namespace dcukit::bench {
namespace {

using Clock = std::chrono::steady_clock;

device::BackendSlot* pick(device::Registry& registry, const Request& request) {
  return request.backend ? registry.find(*request.backend) : registry.default_slot();
}

// Why the measuring thread must be abandoned now (a stop it did not heed, a benchmark hung past
// its deadline), or "" while it may go on.
std::function<std::string()> watcher(Shared& shared, const Request& request, const util::StopToken& stop) {
  return [&shared, &request, &stop, stop_seen = std::optional<Clock::time_point>()]() mutable -> std::string {
    const auto now = Clock::now();
    if (stop.stop_requested()) {
      if (!stop_seen) stop_seen = now;
      if (now - *stop_seen > request.stop_grace) {
        std::lock_guard lock(shared.mutex);
        return fmt::format("{}: {} did not stop within {} ms and was abandoned; the results measured before are kept",
                           std::string(stop.describe()), shared.current, request.stop_grace.count());
      }
    }
    const std::int64_t deadline = shared.deadline_ns.load();
    if (deadline != 0 &&
        now.time_since_epoch().count() >
            deadline + std::chrono::duration_cast<std::chrono::nanoseconds>(request.hang_grace).count()) {
      std::lock_guard lock(shared.mutex);
      return fmt::format("{} hung past its deadline (--timeout {}) and was abandoned", shared.current,
                         util::format_duration(request.options.timeout));
    }
    return {};
  };
}

}  // namespace

Status validate(device::Registry& registry, const Request& request) {
  auto* slot = pick(registry, request);
  if (!slot)
    return Error{fmt::format("--backend {}: unknown; choose cpu, cuda or hip",
                             request.backend ? device::to_string(*request.backend) : "")};
  if (!slot->loaded())
    return Error{fmt::format("--backend {}: not available: {} (see dcukit bench --list-backends)",
                             device::to_string(slot->kind), slot->error)};
  for (std::size_t i = 0; i < request.devices.size(); ++i) {
    const int d = request.devices[i];
    if (d < 0 || d >= slot->device_count)
      return Error{fmt::format("--device {}: the {} backend has {} device(s), 0 to {}", d,
                               device::to_string(slot->kind), slot->device_count, slot->device_count - 1)};
    if (std::find(request.devices.begin(), request.devices.begin() + static_cast<std::ptrdiff_t>(i), d) !=
        request.devices.begin() + static_cast<std::ptrdiff_t>(i))
      return Error{fmt::format("--device {}: device {} is named twice; name each device once",
                               fmt::join(request.devices, ","), d)};
  }
  const std::vector<std::string> keys = benchmark_keys();
  for (const auto& k : request.options.only)
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      return Error{fmt::format("--only {}: unknown benchmark; choose from {}", k, fmt::join(keys, ", "))};
  return {};
}

Result<Report> run(const Request& request) {
  auto registry = request.registry ? request.registry : std::make_shared<device::Registry>(device::Registry::load());
  if (auto st = validate(*registry, request); !st) return st.error();
  const util::StopToken& stop = util::StopToken::process();
  auto shared = std::make_shared<Shared>();
  shared->report.run_info = core::collect_run_info("dcukit bench", request.command);
  shared->report.suite = std::string(to_string(request.options.suite));
  // The thread owns copies of what it uses, so that it may outlive this call when abandoned.
  const std::string abandoned = util::run_watched(
      [shared, registry, request, &stop] { measure(*registry, request, *shared, stop); },
      watcher(*shared, request, stop));
  if (abandoned.empty()) {
    place_all(shared->report);
    // A low figure's likely causes from the card's state as the run ended: clocks, throttle
    // reasons, other processes (a reading of each source within its deadline; GPUs only).
    if (any_low(shared->report) && shared->report.backend != device::BackendKind::cpu)
      explain_low(shared->report, telemetry::collect(telemetry::CollectOptions{}));
    return std::move(shared->report);
  }
  std::lock_guard lock(shared->mutex);
  Report report = shared->report;
  place_all(report);
  report.errors.push_back(abandoned);
  report.abandoned = true;
  report.interrupted = stop.stop_requested();
  return report;
}

}  // namespace dcukit::bench
