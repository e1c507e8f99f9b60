#pragma once
// Telemetry the whole time: a thread takes one reading of every device a second (NVML,
// rocm_smi, sysfs or the vendor tool, each within its deadline) and keeps, for each device under
// stress, its clocks, power, temperature, throttle reasons, ECC and PCIe replay counters, with
// the check running at that moment; and the kernel's messages about GPUs (Xid, amdgpu faults)
// where this user may read them. A backend device is matched to its telemetry device by PCI
// bus id, or by position where the backend gives none (the CPU backend over a test's sysfs).
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stress/types.h"
#include "telemetry/kernel_log.h"

namespace dcukit::stress {

class Watcher {
public:
  using Clock = std::chrono::steady_clock;
  /// `devices`: backend index -> PCI bus id ("" unknown). Nothing runs until start().
  Watcher(telemetry::CollectOptions collect, std::chrono::milliseconds every, std::map<int, std::string> devices,
          Clock::time_point start);
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  /// Takes a first reading now (so that the checks start with one), then one every interval.
  void start();
  /// Ends the thread after its reading in flight.
  void stop();
  /// The check device `index` runs from now on ("" between checks).
  void set_phase(int index, const std::string& phase);
  /// Every reading so far, in time order.
  std::vector<Sample> samples() const;
  /// The readings of one device so far.
  std::vector<Sample> samples_of(int index) const;
  /// Why a device has no readings ("no telemetry source lists a device at 0000:05:00.0"), or "".
  std::string missing(int index) const;
  /// The kernel's messages about GPUs so far.
  std::vector<KernelNote> kernel() const;
  /// Why kernel messages are not watched ("/dev/kmsg: Permission denied ..."), or "".
  std::string kernel_missing() const { return m_kernel_missing; }

private:
  void take();
  void loop();

  telemetry::CollectOptions m_collect;
  std::chrono::milliseconds m_every;
  std::map<int, std::string> m_devices;
  Clock::time_point m_start;
  std::unique_ptr<class Reader> m_reader;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::map<int, std::string> m_phase, m_missing;
  std::vector<Sample> m_samples;
  std::optional<telemetry::KernelLog> m_kernel;
  std::string m_kernel_missing;
  std::map<std::string, int> m_bus_index;  ///< telemetry bus id -> backend index, as matched
  std::vector<KernelNote> m_notes;
  std::thread m_thread;
};

}  // namespace dcukit::stress
