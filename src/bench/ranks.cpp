// The reports of the ranks of an MPI job, made one at rank 0.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "bench/run.h"

namespace dcukit::bench {
namespace {

constexpr double kSlow = 0.8;  ///< a rank under this share of the median rank's rate is named

// Notes naming the ranks whose rate is well under the median rank's for the same case.
std::vector<std::string> slow_ranks(const std::vector<DeviceReport>& devices) {
  std::map<std::string, std::vector<std::pair<double, const DeviceReport*>>> by_case;
  for (const auto& d : devices)
    for (const auto& m : d.results)
      if (m.outcome == Outcome::ok && m.rate > 0 && m.rate_unit != RateUnit::microseconds)
        by_case[m.benchmark + " " + m.name].emplace_back(m.rate, &d);
  std::vector<std::string> notes;
  for (auto& [name, rates] : by_case) {
    if (rates.size() < 3) continue;
    std::vector<double> v;
    for (const auto& [r, d] : rates) v.push_back(r);
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    const double median = v[v.size() / 2];
    for (const auto& [r, d] : rates)
      if (r < kSlow * median)
        notes.push_back(fmt::format("rank {} on {} (device {}): {} at {:.2f} of the median rank's rate; look at its "
                                    "link, NUMA placement and clocks (dcukit doctor on that host)",
                                    d->rank, d->host, d->info.index, name, r / median));
  }
  return notes;
}

}  // namespace

Report merge_ranks(std::vector<Report> ranks, const std::vector<std::string>& hosts) {
  if (ranks.empty()) return {};
  Report out = ranks.front();  // run_info, versions, notes and the group results: rank 0's
  out.devices.clear();
  out.errors.clear();
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const std::string host = r < hosts.size() ? hosts[r] : std::string();
    for (auto& d : ranks[r].devices) {
      d.rank = static_cast<int>(r);
      d.host = host;
      out.devices.push_back(std::move(d));
    }
    for (const auto& e : ranks[r].errors) out.errors.push_back(fmt::format("rank {}: {}", r, e));
    out.interrupted = out.interrupted || ranks[r].interrupted;
    out.abandoned = out.abandoned || ranks[r].abandoned;
  }
  out.notes.push_back(fmt::format("{} ranks under MPI, one device a rank; rank 0 wrote this report", ranks.size()));
  for (auto& n : slow_ranks(out.devices)) out.notes.push_back(std::move(n));
  return out;
}

}  // namespace dcukit::bench
