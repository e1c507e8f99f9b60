#include "load/schedule.h"

#include <cmath>

namespace dcukit::load {
namespace {

double gamma_shape(double burstiness) {
  return burstiness > 0 ? burstiness : 1.0;
}

}  // namespace

SendSchedule::SendSchedule(double rate, double burstiness, std::uint64_t seed)
    : m_rng(seed), m_paced(rate > 0 && std::isfinite(rate)) {
  if (m_paced) m_gap = std::gamma_distribution<double>(gamma_shape(burstiness), 1.0 / (rate * gamma_shape(burstiness)));
}

double SendSchedule::next() {
  if (m_paced && !m_first) m_t += m_gap(m_rng);
  m_first = false;
  return m_t;
}

std::vector<double> schedule_times(std::size_t count, double rate, double burstiness, std::uint64_t seed) {
  SendSchedule schedule(rate, burstiness, seed);
  std::vector<double> times(count);
  for (double& t : times) t = schedule.next();
  return times;
}

}  // namespace dcukit::load
