#include "stress/watcher.h"

#include <fmt/format.h>

#include "telemetry/collector.h"

namespace dcukit::stress {

/// The Collector behind the watcher (kept between readings: a library is loaded once).
class Reader {
public:
  explicit Reader(const telemetry::CollectOptions& o) : collector(o) {}
  telemetry::Collector collector;
};

namespace {

std::string bus(const std::string& id) {
  return telemetry::normalize_bus_id(id).value_or("");
}

Sample sample_of(const telemetry::DeviceState& d, int index, double t) {
  Sample s;
  s.t_s = t;
  s.device = index;
  s.power_w = d.power_w;
  s.power_cap_w = d.power_cap_w;
  s.temperature_c = d.temperature_c;
  s.busy_percent = d.busy_percent;
  s.sclk_mhz = d.sclk_mhz;
  s.mclk_mhz = d.mclk_mhz;
  s.sclk_max_mhz = d.sclk_max_mhz;
  s.ecc_corrected = d.ecc_corrected;
  s.ecc_uncorrected = d.ecc_uncorrected;
  s.pcie_replays = d.pcie_replays;
  s.retired_pages = d.retired_pages;
  s.retirement_pending = d.retirement_pending;
  s.retirement_failed = d.retirement_failed;
  s.throttle_reasons = d.throttle_reasons;
  return s;
}

}  // namespace

Watcher::Watcher(telemetry::CollectOptions collect, std::chrono::milliseconds every, std::map<int, std::string> devices,
                 Clock::time_point start)
    : m_collect(std::move(collect)), m_every(every), m_devices(std::move(devices)), m_start(start) {}

Watcher::~Watcher() {
  stop();
}

void Watcher::start() {
  m_reader = std::make_unique<Reader>(m_collect);
  if (auto log = telemetry::KernelLog::open(m_collect.root))
    m_kernel.emplace(std::move(*log));
  else
    m_kernel_missing = log.error().message;
  take();
  m_thread = std::thread([this] { loop(); });
}

void Watcher::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
}

void Watcher::loop() {
  std::unique_lock lock(m_mutex);
  while (!m_wake.wait_for(lock, m_every, [this] { return m_stop; })) {
    lock.unlock();
    take();
    lock.lock();
  }
}

void Watcher::take() {
  const telemetry::Snapshot snap = m_reader->collector.sample();
  const double t = std::chrono::duration<double>(Clock::now() - m_start).count();
  std::lock_guard lock(m_mutex);
  int position = 0;
  for (const auto& [index, bus_id] : m_devices) {
    const telemetry::DeviceState* found = nullptr;
    for (const auto& d : snap.devices)
      if (!bus_id.empty() && d.bus_id && bus(*d.bus_id) == bus(bus_id)) found = &d;
    if (!found && bus_id.empty() && position < static_cast<int>(snap.devices.size()))
      found = &snap.devices[static_cast<std::size_t>(position)];
    ++position;
    if (!found) {
      m_missing[index] = bus_id.empty() ? fmt::format("telemetry lists {} device(s), none at position {}",
                                                      snap.devices.size(), position - 1)
                                        : fmt::format("no telemetry source lists a device at {}", bus_id);
      continue;
    }
    m_missing.erase(index);
    if (found->bus_id) m_bus_index[bus(*found->bus_id)] = index;
    Sample s = sample_of(*found, index, t);
    s.phase = m_phase[index];
    m_samples.push_back(std::move(s));
  }
  if (!m_kernel) return;
  for (auto& e : m_kernel->read_new()) {
    KernelNote n;
    n.t_s = t;
    const auto it = m_bus_index.find(e.bus_id);
    n.device = it == m_bus_index.end() ? -1 : it->second;
    n.kind = std::string(telemetry::to_string(e.kind));
    n.xid = e.xid;
    n.text = std::move(e.text);
    m_notes.push_back(std::move(n));
  }
}

std::vector<KernelNote> Watcher::kernel() const {
  std::lock_guard lock(m_mutex);
  return m_notes;
}

void Watcher::set_phase(int index, const std::string& phase) {
  std::lock_guard lock(m_mutex);
  m_phase[index] = phase;
}

std::vector<Sample> Watcher::samples() const {
  std::lock_guard lock(m_mutex);
  return m_samples;
}

std::vector<Sample> Watcher::samples_of(int index) const {
  std::lock_guard lock(m_mutex);
  std::vector<Sample> out;
  for (const auto& s : m_samples)
    if (s.device == index) out.push_back(s);
  return out;
}

std::string Watcher::missing(int index) const {
  std::lock_guard lock(m_mutex);
  const auto it = m_missing.find(index);
  return it == m_missing.end() ? std::string() : it->second;
}

}  // namespace dcukit::stress
