#include "guard/backoff.h"

#include <algorithm>
#include <random>

namespace dcukit::guard {

Backoff::Backoff(std::function<double()> random01) : m_random(std::move(random01)) {
  if (!m_random) {
    m_random = [engine = std::mt19937_64(std::random_device{}())]() mutable {
      return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
    };
  }
}

std::chrono::milliseconds Backoff::next(std::chrono::milliseconds initial, std::chrono::milliseconds cap) {
  double nominal = static_cast<double>(initial.count());
  for (int i = 0; i < m_in_a_row && nominal < static_cast<double>(cap.count()); ++i) nominal *= 2;
  nominal = std::min(nominal, static_cast<double>(cap.count()));
  ++m_in_a_row;
  const double r = std::clamp(m_random(), 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<long long>(nominal / 2 + r * nominal / 2));
}

int CrashWindow::count(Clock::time_point now, std::chrono::milliseconds window) {
  while (!m_times.empty() && now - m_times.front() > window) m_times.pop_front();
  return static_cast<int>(m_times.size());
}

bool CrashWindow::record(Clock::time_point now, std::chrono::milliseconds window, int max_restarts) {
  m_times.push_back(now);
  return count(now, window) > max_restarts;
}

}  // namespace dcukit::guard
