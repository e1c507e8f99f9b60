#include "device/comm/rendezvous.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace dcukit::device::comm {

Status Rendezvous::meet(int rank, std::chrono::milliseconds timeout) {
  std::unique_lock lock(m_mutex);
  if (!m_broken.empty()) return Error{m_broken};
  m_here[static_cast<std::size_t>(rank)] = true;
  const std::uint64_t gen = m_generation;
  if (++m_arrived == m_ranks) {
    m_arrived = 0;
    ++m_generation;
    std::fill(m_here.begin(), m_here.end(), false);
    m_changed.notify_all();
    return {};
  }
  const auto until = std::chrono::steady_clock::now() + timeout;
  if (m_changed.wait_until(lock, until, [&] { return m_generation != gen || !m_broken.empty(); }))
    return m_broken.empty() ? Status{} : Status{Error{m_broken}};
  std::vector<int> missing;
  for (int r = 0; r < m_ranks; ++r)
    if (!m_here[static_cast<std::size_t>(r)]) missing.push_back(r);
  m_broken = fmt::format("rank(s) {} of {} did not arrive within {} ms", fmt::join(missing, ", "), m_ranks,
                         timeout.count());
  m_changed.notify_all();
  return Error{m_broken};
}

void Rendezvous::break_with(const std::string& why) {
  std::lock_guard lock(m_mutex);
  if (m_broken.empty()) m_broken = why;
  m_changed.notify_all();
}

template <class Fold>
Result<double> Rendezvous::fold(int rank, double value, std::chrono::milliseconds timeout, Fold f) {
  {
    std::lock_guard lock(m_mutex);
    m_values[static_cast<std::size_t>(rank)] = value;
  }
  if (Status s = meet(rank, timeout); !s) return s.error();
  double out;
  {
    std::lock_guard lock(m_mutex);
    out = f(m_values);
  }
  if (Status s = meet(rank, timeout); !s) return s.error();  // nobody overwrites a value still read
  return out;
}

Result<double> Rendezvous::max_of(int rank, double value, std::chrono::milliseconds timeout) {
  return fold(rank, value, timeout, [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
}

Result<double> Rendezvous::sum_of(int rank, double value, std::chrono::milliseconds timeout) {
  return fold(rank, value, timeout, [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); });
}

}  // namespace dcukit::device::comm
