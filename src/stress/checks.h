#pragma once
// The checks one device runs, each from the same context: the Device and its stream, what is
// known of it (the peak data, its link, its SKU's thresholds), the time it may take, the watcher
// and the stop token. Each check returns its result and never throws; a device call that fails
// is a failed check that names the call, and the run goes on with the next one.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "device/registry.h"
#include "stress/thresholds.h"
#include "stress/types.h"
#include "stress/watcher.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::stress {

/// "1 word", "3 words": a count with its noun.
inline std::string counted(long long n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

/// What every check of one device is given.
struct DeviceRun {
  device::Backend& backend;
  device::Device& dev;
  device::Stream stream;
  device::DetectedDevice info;
  const SkuThresholds* sku = nullptr;  ///< null: no reference
  bool on_cpu = false;
  std::chrono::milliseconds call_timeout{120000};
  Watcher::Clock::time_point start;
  const util::StopToken* stop = nullptr;
  Watcher* watcher = nullptr;  ///< null when telemetry is off
  std::function<void(const std::string&)> say;
  std::optional<device::Precision> precision;  ///< --precision: the GEMM's, instead of the SKU's

  /// Seconds since the run started.
  double now_s() const;
  /// SIGINT or SIGTERM arrived.
  bool stopped() const;
  /// A line of progress, "device 0: gemm bf16 N=8192 ...".
  void progress(const std::string& line) const;
};

/// health: the device's state at the start (ECC since the driver loaded, the link's width,
/// temperature) from telemetry.
CheckResult check_health(DeviceRun& r);
/// kernel: a small checked GEMM and a STREAM add whose every element is read back.
CheckResult check_kernel(DeviceRun& r);
/// gemm: GEMMs for `time` at --precision, else the SKU's, else the fastest the device has; every batch
/// timed, outputs compared with the first, sampled elements with a float64 reference.
CheckResult check_gemm(DeviceRun& r, std::chrono::milliseconds time);
/// hbm: STREAM triads over three arrays for `time`, timed and the result read back.
CheckResult check_hbm(DeviceRun& r, std::chrono::milliseconds time);
/// memtest: bit patterns written over most of the free memory and read back, for `time`.
CheckResult check_memtest(DeviceRun& r, std::chrono::milliseconds time);
/// pcie: pinned host-to-device and device-to-host copies for `time`, against the link.
CheckResult check_pcie(DeviceRun& r, std::chrono::milliseconds time);

/// power: the power and clocks the watcher saw during the GEMM step (`from_s` to `to_s`).
/// `sku` null: no reference; `on_cpu`: the CPU backend, which has no power reading.
CheckResult judge_power(bool on_cpu, const SkuThresholds* sku, const std::vector<Sample>& samples, double from_s,
                        double to_s);
/// What the watcher saw of one device over the whole run, added to its health check: ECC, PCIe
/// replay and retired-page counters that grew, clocks held down under load and why, and the
/// kernel's messages about it (`kernel`: this device's only).
void judge_run(const std::vector<Sample>& samples, const std::vector<KernelNote>& kernel, CheckResult& health);

/// The median of the rates of `series` after its first `skip_s` seconds (all when that leaves none).
std::optional<double> sustained(const std::vector<RatePoint>& series, double skip_s);

/// Sets `c`'s verdict, action and evidence from its rate against its floor (fail below it) and
/// its reference; "no reference" where the SKU has none.
void judge_rate(CheckResult& c, const std::optional<Figure>& figure, const std::string& unit_words);

}  // namespace dcukit::stress
