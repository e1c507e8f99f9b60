#pragma once
// `dcukit stress`'s Request (a level of checks, for how long, on which devices) and Report (each
// device's checks with a verdict, the evidence and the action, and the telemetry series watched
// the whole time). Plain structs: stress::run fills the Report, render.h renders it.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_info.h"
#include "device/registry.h"
#include "device/types.h"
#include "telemetry/types.h"

namespace dcukit::util {
class StopToken;
}

namespace dcukit::stress {

/// What a check exercises.
enum class CheckKind {
  health,   ///< the device's state from telemetry at the start (ECC, link, temperature)
  kernel,   ///< a small checked kernel and GEMM: the device computes
  gemm,     ///< sustained GEMM at the device's fastest precision, every output checked
  hbm,      ///< device-memory bandwidth (STREAM triad), the result checked
  memtest,  ///< patterns written over most of the free memory and read back
  pcie,     ///< host-device transfers against the link, the data checked
  power,    ///< power and clocks under the sustained GEMM
};
std::string_view to_string(CheckKind k);
std::optional<CheckKind> parse_check(std::string_view s);

/// A check's outcome, as DCGM's diagnostics grade them.
enum class Verdict { pass, warn, fail, skip };
std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);

/// What to do about a result (DCGM's recommended actions).
enum class Action { none, monitor, investigate, reset, drain_and_replace };
std::string_view to_string(Action a);
std::optional<Action> parse_action(std::string_view s);

/// One reading of one device's telemetry during the run.
struct Sample {
  double t_s = 0;  ///< seconds since the run started
  int device = 0;  ///< the backend's device index
  std::optional<double> power_w, power_cap_w, temperature_c, busy_percent;
  std::optional<std::int64_t> sclk_mhz, mclk_mhz, sclk_max_mhz;
  std::optional<std::int64_t> ecc_corrected, ecc_uncorrected, pcie_replays;
  std::optional<std::int64_t> retired_pages, retirement_pending, retirement_failed;
  std::optional<std::string> throttle_reasons;
  std::string phase;  ///< the check running then ("gemm"), "" between checks
};

/// Calls f(name, field) for each figure of a Sample, in the order the JSON and CSV write them:
/// one list for the watcher, the writers and the reader.
template <class S, class F>
void visit_figures(S& s, F&& f) {
  f("power_w", s.power_w);
  f("power_cap_w", s.power_cap_w);
  f("temperature_c", s.temperature_c);
  f("busy_percent", s.busy_percent);
  f("sclk_mhz", s.sclk_mhz);
  f("mclk_mhz", s.mclk_mhz);
  f("sclk_max_mhz", s.sclk_max_mhz);
  f("ecc_corrected", s.ecc_corrected);
  f("ecc_uncorrected", s.ecc_uncorrected);
  f("pcie_replays", s.pcie_replays);
  f("retired_pages", s.retired_pages);
  f("retirement_pending", s.retirement_pending);
  f("retirement_failed", s.retirement_failed);
  f("throttle_reasons", s.throttle_reasons);
}

/// A kernel message about a device during the run (an Xid, an amdgpu fault or reset).
struct KernelNote {
  double t_s = 0;
  int device = -1;   ///< the backend's index; -1 where the message names no watched device
  std::string kind;  ///< telemetry::KernelEventKind's name: "xid", "off the bus", "fault", "reset", "ras"
  int xid = 0;
  std::string text;
};

/// A rate measured over a stretch of a check (a batch of GEMMs, one triad pass).
struct RatePoint {
  double t_s = 0;   ///< when the stretch ended, seconds since the run started
  double rate = 0;  ///< operations or bytes a second
};

/// One check on one device.
struct CheckResult {
  CheckKind kind = CheckKind::health;
  Verdict verdict = Verdict::pass;
  Action action = Action::none;
  std::string summary;                ///< one line: what was measured, against what
  std::vector<std::string> evidence;  ///< what each verdict rests on
  double seconds = 0;                 ///< how long it ran
  std::string unit;                   ///< "FLOP/s", "B/s", "W", ""
  std::optional<double> rate;         ///< the sustained figure (median of the stretches)
  std::optional<double> expected;     ///< the SKU's expected figure, where the data has one
  std::optional<double> floor;        ///< below this the check fails
  std::string reference;              ///< where expected and floor come from, or "no reference"
  std::int64_t errors = 0;            ///< wrong numbers or bytes found
  std::vector<RatePoint> series;      ///< the rate over time
};

/// One device's run.
struct DeviceResult {
  int index = 0;
  std::string name, pci_id, bus_id, sku;  ///< sku: the thresholds' key matched, "" for none
  std::vector<CheckResult> checks;
  Verdict verdict = Verdict::pass;  ///< the worst of its checks
  Action action = Action::none;     ///< the strongest action its checks name
};

/// What to run.
struct Request {
  int level = 1;                                     ///< 1 seconds, 2 about two minutes, 3 about fifteen, 4 hours
  std::optional<std::chrono::seconds> duration;      ///< overrides the level's total
  std::vector<CheckKind> only;                       ///< empty: the level's checks
  std::optional<device::Precision> precision;        ///< the GEMM's; empty: the SKU's, else the fastest
  std::optional<device::BackendKind> backend;        ///< empty: the first GPU backend with a device, else cpu
  std::vector<int> devices;                          ///< empty: every device of the backend
  std::shared_ptr<device::Registry> registry;        ///< null: loaded by run()
  telemetry::CollectOptions collect;                 ///< where telemetry is read from
  std::chrono::milliseconds sample_every{1000};      ///< telemetry's interval; 0 turns the watch off
  std::chrono::milliseconds call_timeout{120000};    ///< the most one device call may take
  std::string command;                               ///< for run_info
  const util::StopToken* stop = nullptr;             ///< SIGINT/SIGTERM: stop, keep what was measured
  std::function<void(const std::string&)> progress;  ///< a line a step; may be empty
};

/// One run.
struct Report {
  core::RunInfo run_info;
  int level = 1;
  double planned_s = 0, elapsed_s = 0;
  device::BackendKind backend = device::BackendKind::cpu;
  std::vector<DeviceResult> devices;
  std::vector<Sample> samples;     ///< every telemetry reading, in time order
  std::vector<KernelNote> kernel;  ///< the kernel's messages about GPUs during the run
  std::vector<std::string> notes;  ///< what the user should know (no telemetry, a check left out)
  bool interrupted = false;        ///< stopped by SIGINT/SIGTERM: what ran before is kept
  /// A device's thread is still stuck in the runtime: write the report, then end the process
  /// without running destructors (std::_Exit).
  bool abandoned = false;

  /// The worst verdict of any device (pass when there is none).
  Verdict verdict() const;
};

/// The severity order: skip < pass < warn < fail (a device whose every check was skipped is
/// skipped; one skipped check beside passes does not fail it).
Verdict worse(Verdict a, Verdict b);
/// The stronger of two actions.
Action stronger(Action a, Action b);

}  // namespace dcukit::stress
