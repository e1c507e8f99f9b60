#include <cmath>
#include <random>

#include "load/engine.h"

namespace dcukit::load {

std::vector<double> schedule_times(std::size_t count, double rate, double burstiness, std::uint64_t seed) {
  std::vector<double> times(count, 0.0);
  if (!(rate > 0) || std::isinf(rate)) return times;
  const double shape = burstiness > 0 ? burstiness : 1.0;
  std::mt19937_64 rng(seed);
  std::gamma_distribution<double> gap(shape, 1.0 / (rate * shape));
  double t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) t += gap(rng);  // the first request goes at once, as vLLM's does
    times[i] = t;
  }
  return times;
}

}  // namespace dcukit::load
