#include "core/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dcukit::core {
namespace {

double sorted_percentile(const std::vector<double>& s, double q) {
  if (s.empty()) return 0;
  q = std::clamp(q, 0.0, 100.0);
  const double pos = q / 100.0 * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return s[lo] + (s[hi] - s[lo]) * frac;
}

} // namespace

double percentile(std::span<const double> samples, double q) {
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  return sorted_percentile(s, q);
}

Summary summarize(std::span<const double> samples) {
  Summary r;
  r.count = samples.size();
  if (samples.empty()) return r;
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  r.min = s.front();
  r.max = s.back();
  r.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  double ss = 0;
  for (double v : s) ss += (v - r.mean) * (v - r.mean);
  r.stddev = s.size() > 1 ? std::sqrt(ss / static_cast<double>(s.size() - 1)) : 0.0;
  r.median = sorted_percentile(s, 50);
  r.p90 = sorted_percentile(s, 90);
  r.p95 = sorted_percentile(s, 95);
  r.p99 = sorted_percentile(s, 99);
  r.p999 = sorted_percentile(s, 99.9);
  return r;
}

} // namespace dcukit::core
