// What the checks share: the context's clock and stop, timing a batch of enqueued work between
// two events, and judging a sustained rate against the SKU's floor.
#include <fmt/format.h>

#include <algorithm>

#include "core/units.h"
#include "stress/checks.h"
#include "stress/timing.h"
#include "util/signals.h"

namespace dcukit::stress {

double DeviceRun::now_s() const {
  return std::chrono::duration<double>(Watcher::Clock::now() - start).count();
}

bool DeviceRun::stopped() const {
  return stop != nullptr && stop->stop_requested();
}

void DeviceRun::progress(const std::string& line) const {
  if (say) say(fmt::format("device {}: {}", info.info.index, line));
}

Result<double> timed_ms(DeviceRun& r, int count, const std::function<Status()>& enqueue) {
  auto e0 = r.dev.create_event();
  if (!e0) return e0.error();
  auto e1 = r.dev.create_event();
  if (!e1) {
    r.dev.destroy_event(*e0);
    return e1.error();
  }
  Result<double> out = Error{"not timed"};
  Status s = r.dev.record(*e0, r.stream);
  for (int i = 0; s && i < count; ++i) s = enqueue();
  if (s) s = r.dev.record(*e1, r.stream);
  if (s)
    out = r.dev.elapsed_ms(*e0, *e1, r.call_timeout);
  else
    out = s.error();
  r.dev.destroy_event(*e0);
  r.dev.destroy_event(*e1);
  return out;
}

int calibrate(DeviceRun& r, const std::function<Status()>& enqueue, double target_ms, Status& error) {
  int count = 1;
  for (int round = 0; round < 12; ++round) {
    auto ms = timed_ms(r, count, enqueue);
    if (!ms) {
      error = ms.error();
      return 0;
    }
    if (*ms >= target_ms || r.stopped()) break;
    const double grow = *ms <= 0 ? 8.0 : std::min(8.0, std::max(2.0, target_ms / *ms));
    count = static_cast<int>(std::min(1e6, count * grow));
  }
  return count;
}

std::optional<double> sustained(const std::vector<RatePoint>& series, double skip_s) {
  if (series.empty()) return std::nullopt;
  std::vector<double> rates;
  const double from = series.front().t_s + skip_s;
  for (const auto& p : series)
    if (p.t_s >= from) rates.push_back(p.rate);
  if (rates.empty())
    for (const auto& p : series) rates.push_back(p.rate);
  std::sort(rates.begin(), rates.end());
  const std::size_t n = rates.size();
  return n % 2 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
}

std::string rate_text(double rate, const std::string& unit) {
  if (unit == "FLOP/s") return core::format_ops(rate, false);
  if (unit == "B/s") return fmt::format("{:.1f} GB/s", rate / 1e9);
  return fmt::format("{:.3g} {}", rate, unit);
}

void judge_rate(CheckResult& c, const std::optional<Figure>& figure, const std::string& unit_words) {
  if (!c.rate) return;
  if (!figure) {
    c.reference = "no reference";
    c.evidence.push_back(fmt::format("{} {}: no reference for this SKU (data/stress.json), so no floor", unit_words,
                                     rate_text(*c.rate, c.unit)));
    return;
  }
  c.expected = figure->expected;
  c.floor = figure->floor;
  c.reference = figure->source;
  const double ratio = *c.rate / figure->expected;
  c.evidence.push_back(fmt::format("{} {}: {:.0f}% of the SKU's expected {} (floor {})", unit_words,
                                   rate_text(*c.rate, c.unit), 100 * ratio, rate_text(figure->expected, c.unit),
                                   rate_text(figure->floor, c.unit)));
  if (*c.rate < figure->floor) {
    c.verdict = worse(c.verdict, Verdict::fail);
    c.action = stronger(c.action, Action::investigate);
  }
}

}  // namespace dcukit::stress
