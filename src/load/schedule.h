#pragma once
// The open-loop schedule: when each request of a run at a request rate is due.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace dcukit::load {

/// Send times in seconds from the start, one request at a time: the first at 0 (as vLLM's
/// client sends it), each later one a gamma-distributed gap after the one before, with mean
/// 1/rate and shape burstiness (1: exponential gaps, a Poisson process). A rate that is not a
/// finite positive number (infinity: all at once) gives 0 for every request.
class SendSchedule {
public:
  SendSchedule(double rate, double burstiness, std::uint64_t seed);
  /// The next request's time.
  double next();

private:
  std::mt19937_64 m_rng;
  std::gamma_distribution<double> m_gap;
  bool m_paced;
  bool m_first = true;
  double m_t = 0;
};

/// The first count times of SendSchedule(rate, burstiness, seed).
std::vector<double> schedule_times(std::size_t count, double rate, double burstiness, std::uint64_t seed);

}  // namespace dcukit::load
