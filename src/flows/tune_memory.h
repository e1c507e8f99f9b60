#pragma once
// Device memory watched while tune loads a setting, so that a setting that would run out of
// memory under load is rejected before it does (vLLM's own tuning script finds a setting that
// starts and then runs out of memory in its benchmark). A thread reads every card's memory a few
// times a second, from the live sources (NVML, rocm_smi, sysfs, the vendor tools, each within
// its deadline) or from a file that holds a vendor tool's latest reading; the highest share of
// any watched card is kept. The cards watched are those CUDA_VISIBLE_DEVICES or
// HIP_VISIBLE_DEVICES name by index, else all the host lists.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

namespace dcukit::flows {

/// The fullest card of a reading.
struct MemoryPeak {
  int device = 0;
  std::uint64_t used = 0, total = 0;
  double share() const { return total ? static_cast<double>(used) / static_cast<double>(total) : 0; }
};

/// The card indices an environment's CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES names (empty: all;
/// a UUID or other name there: all, as the index is not known).
std::set<int> visible_devices(const char* cuda, const char* hip);

class MemoryWatch {
public:
  /// `from`: a file read at each sample ("" the live sources); `limit`: the share of a card's
  /// memory that is too much.
  MemoryWatch(std::string from, double limit, std::set<int> devices);
  ~MemoryWatch();
  MemoryWatch(const MemoryWatch&) = delete;
  MemoryWatch& operator=(const MemoryWatch&) = delete;

  /// One reading now (the peak since reset), then one every `every` on a thread.
  void start(std::chrono::milliseconds every);
  void stop();
  /// Forgets the peak (a new probe).
  void reset();
  /// The highest share seen since reset; nullopt while no reading had a watched card's memory.
  std::optional<MemoryPeak> peak() const;
  bool over() const { return m_over.load(); }
  /// Why no card's memory could be read ("" once one was).
  std::string missing() const;
  /// "card 0 at 98% of its memory (980 of 1000 MiB), over the limit of 97%".
  std::string describe(const MemoryPeak& p) const;

private:
  void take();
  std::string m_from;
  double m_limit;
  std::set<int> m_devices;
  std::unique_ptr<class MemoryReader> m_reader;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::optional<MemoryPeak> m_peak;
  std::string m_missing;
  std::atomic<bool> m_over{false};
  std::thread m_thread;
};

}  // namespace dcukit::flows
