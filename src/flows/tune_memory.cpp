#include "flows/tune_memory.h"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

#include "telemetry/capture.h"
#include "telemetry/collector.h"

namespace dcukit::flows {

/// The live sources, kept between readings (a library is loaded once).
class MemoryReader {
public:
  telemetry::Collector collector{telemetry::CollectOptions{}};
};

std::set<int> visible_devices(const char* cuda, const char* hip) {
  const char* list = cuda && *cuda ? cuda : hip;
  std::set<int> out;
  if (!list || !*list) return out;
  std::string item;
  const std::string text = list;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != ',') {
      item += text[i];
      continue;
    }
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return {};
    out.insert(std::atoi(item.c_str()));
    item.clear();
  }
  return out;
}

MemoryWatch::MemoryWatch(std::string from, double limit, std::set<int> devices)
    : m_from(std::move(from)), m_limit(limit), m_devices(std::move(devices)) {}

MemoryWatch::~MemoryWatch() { stop(); }

void MemoryWatch::take() {
  telemetry::Snapshot snap;
  if (m_from.empty()) {
    if (!m_reader) m_reader = std::make_unique<MemoryReader>();
    snap = m_reader->collector.sample();
  } else if (auto s = telemetry::read_capture_file(m_from)) {
    snap = std::move(*s);
  } else {
    std::lock_guard lock(m_mutex);
    if (!m_peak) m_missing = s.error().message;
    return;
  }
  std::optional<MemoryPeak> best;
  for (const auto& d : snap.devices) {
    if (!m_devices.empty() && !m_devices.count(d.index)) continue;
    if (!d.memory_used_bytes || !d.memory_total_bytes || !*d.memory_total_bytes) continue;
    const MemoryPeak p{d.index, *d.memory_used_bytes, *d.memory_total_bytes};
    if (!best || p.share() > best->share()) best = p;
  }
  std::lock_guard lock(m_mutex);
  if (!best) {
    if (!m_peak)
      m_missing = snap.devices.empty() ? "no telemetry source lists a card"
                                       : "no watched card's memory use is reported by the telemetry sources";
    return;
  }
  m_missing.clear();
  if (!m_peak || best->share() > m_peak->share()) m_peak = best;
  if (m_limit > 0 && m_peak->share() >= m_limit) m_over = true;
}

void MemoryWatch::start(std::chrono::milliseconds every) {
  if (m_thread.joinable()) return;
  take();
  m_stop = false;
  m_thread = std::thread([this, every] {
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, every, [this] { return m_stop; })) {
      lock.unlock();
      take();
      lock.lock();
    }
  });
}

void MemoryWatch::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void MemoryWatch::reset() {
  std::lock_guard lock(m_mutex);
  m_peak.reset();
  m_over = false;
}

std::optional<MemoryPeak> MemoryWatch::peak() const {
  std::lock_guard lock(m_mutex);
  return m_peak;
}

std::string MemoryWatch::missing() const {
  std::lock_guard lock(m_mutex);
  return m_missing;
}

std::string MemoryWatch::describe(const MemoryPeak& p) const {
  constexpr double kMiB = 1024.0 * 1024.0;
  return fmt::format("card {} at {:.1f}% of its memory ({:.0f} of {:.0f} MiB){}", p.device, p.share() * 100,
                     static_cast<double>(p.used) / kMiB, static_cast<double>(p.total) / kMiB,
                     m_limit > 0 && p.share() >= m_limit ? fmt::format(", over the limit of {:g}%", m_limit * 100) : "");
}

}  // namespace dcukit::flows
