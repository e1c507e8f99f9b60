#pragma once
// The live reading: the sources in order (NVML, rocm_smi library, sysfs, vendor tools), each
// called on a worker thread with a deadline, merged so that each figure comes from the first
// source that has it. This is telemetry's entry point for `dcukit telemetry` and `dcukit doctor`.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/source.h"
#include "telemetry/types.h"

namespace dcukit::telemetry {

/// The sources CollectOptions asks for, in order.
std::vector<std::shared_ptr<Source>> make_sources(const CollectOptions& options);

/// Keeps the sources between readings (a library is loaded and initialised once).
class Collector {
public:
  explicit Collector(const CollectOptions& options);
  /// Uses these sources (tests pass fakes).
  Collector(std::vector<std::shared_ptr<Source>> sources, std::chrono::milliseconds timeout);

  /// One reading of every device. Blocks at most about timeout × the number of sources. A
  /// source that misses its deadline is reported failed and not asked again (its call may still
  /// be stuck in the driver).
  Snapshot sample();

private:
  struct Slot {
    std::shared_ptr<Source> source;
    std::optional<std::string> hung;  ///< why it is no longer asked
  };
  std::vector<Slot> m_slots;
  std::chrono::milliseconds m_timeout;
};

/// One reading with a fresh Collector.
Snapshot collect(const CollectOptions& options);

}  // namespace dcukit::telemetry
