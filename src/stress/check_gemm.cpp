// gemm: sustained matrix multiplies at the device's fastest precision (gpu-burn's and DCGM's
// targeted stress), every batch timed, outputs compared with the first and sampled elements with
// a float64 reference; power: what the card drew and how its clocks held meanwhile.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <future>

#include "core/units.h"
#include "device/checked_gemm.h"
#include "device/gemm_data.h"
#include "stress/checks.h"
#include "stress/timing.h"
#include "util/duration.h"

namespace dcukit::stress {
namespace {

using device::Precision;

Precision precision_of(DeviceRun& r) {
  if (r.precision) return *r.precision;
  if (r.sku && r.sku->gemm_precision && r.dev.gemm_unsupported(*r.sku->gemm_precision).empty())
    return *r.sku->gemm_precision;
  for (Precision p : {Precision::bf16, Precision::fp16, Precision::tf32, Precision::fp32})
    if (!r.on_cpu && r.dev.gemm_unsupported(p).empty()) return p;
  return Precision::fp32;
}

/// Two outputs agree where each element is within a few units of the output format's last place
/// (a reordered accumulation), never where a bit of its exponent or high mantissa flipped.
double agreement(Precision p) {
  switch (p) {
    case Precision::bf16:
      return 1.6e-2;
    case Precision::fp16:
      return 2e-3;
    default:
      return 1e-4;
  }
}

std::int64_t differences(Precision p, const std::vector<char>& a, const std::vector<char>& b, std::size_t elems) {
  std::int64_t n = 0;
  const double tol = agreement(p);
  for (std::size_t i = 0; i < elems; ++i) {
    const double x = device::output_value(p, a.data(), i), y = device::output_value(p, b.data(), i);
    if (!(std::fabs(x - y) <= tol * std::max(1.0, std::fabs(y)))) ++n;  // NaN counts
  }
  return n;
}

/// The mean rate over [from, to) seconds of the series.
std::optional<double> mean_between(const std::vector<RatePoint>& s, double from, double to) {
  double sum = 0;
  int n = 0;
  for (const auto& p : s)
    if (p.t_s >= from && p.t_s < to) sum += p.rate, ++n;
  return n ? std::optional<double>(sum / n) : std::nullopt;
}

}  // namespace

CheckResult check_gemm(DeviceRun& r, std::chrono::milliseconds time) {
  CheckResult c;
  c.kind = CheckKind::gemm;
  c.unit = "FLOP/s";
  const Precision p = precision_of(r);
  if (const std::string why = r.dev.gemm_unsupported(p); !why.empty()) {
    c.verdict = Verdict::skip;
    c.summary = fmt::format("{} GEMM: {}", device::to_string(p), why);
    c.evidence.push_back(c.summary);
    return c;
  }
  int n = r.sku && r.sku->gemm_n > 0 && r.sku->gemm_precision == p ? r.sku->gemm_n : (r.on_cpu ? 512 : 8192);
  if (auto mem = r.dev.memory_info())
    while (n > 256 && 3.0 * n * n * 4 > 0.5 * static_cast<double>(mem->free)) n /= 2;
  const double t0 = r.now_s();
  auto fail = [&](const std::string& what, const std::string& why) {
    c.verdict = Verdict::fail;
    c.action = stronger(c.action, Action::investigate);
    c.summary = what + ": " + why;
    c.evidence.push_back(c.summary);
    c.seconds = r.now_s() - t0;
    return c;
  };
  r.progress(fmt::format(
      "gemm {} N={} for {}", device::to_string(p), n,
      util::format_duration(std::chrono::duration_cast<std::chrono::seconds>(time + std::chrono::milliseconds(500)))));
  auto g = device::CheckedGemm::make(r.dev, r.stream, p, n, 31, 32, r.call_timeout);
  if (!g) return fail(fmt::format("{} GEMM N={}", device::to_string(p), n), g.error().message);
  if (Status s = g->enqueue(); !s) return fail("the first GEMM", s.message());
  auto first_check = g->check(r.call_timeout);
  if (!first_check) return fail("reading the first GEMM", first_check.error().message);
  auto first = g->read(r.call_timeout);
  if (!first) return fail("reading the first GEMM", first.error().message);
  const std::size_t elems = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<std::string> wrong;
  if (!first_check->passed) {
    ++c.errors;
    wrong.push_back(fmt::format("the first output against the float64 reference: {}", first_check->summary));
  }
  Status error;
  const int batch = calibrate(
      r, [&] { return g->enqueue(); }, r.on_cpu ? 200 : 250, error);
  if (batch == 0) return fail("timing the GEMM", error.message());
  const int compare_every = first->size() <= (16u << 20) ? 1 : 8;
  // Each output read back is compared with the first on a thread of its own while the device
  // runs the next batches: the device never waits for the host's check.
  std::future<std::int64_t> comparing;
  double compared_at = 0;
  const auto collect = [&] {
    if (!comparing.valid()) return;
    if (const auto d = comparing.get(); d > 0) {
      c.errors += d;
      if (wrong.size() < 5)
        wrong.push_back(fmt::format("{} from the first output at {:.1f} s",
                                    counted(d, "element differs", "elements differ"), compared_at));
    }
  };
  double next_reference = r.now_s() + 30;
  for (int b = 1; r.now_s() - t0 < time.count() / 1e3 && !r.stopped(); ++b) {
    auto ms = timed_ms(r, batch, [&] { return g->enqueue(); });
    if (!ms) return fail("a GEMM batch", ms.error().message);
    c.series.push_back({r.now_s(), batch * g->work() / (*ms / 1e3)});
    if (b % compare_every == 0) {
      auto out = g->read(r.call_timeout);
      if (!out) return fail("reading a GEMM output", out.error().message);
      collect();
      comparing = std::async(std::launch::async,
                             [p, elems, &first, out = std::move(*out)] { return differences(p, out, *first, elems); });
      compared_at = r.now_s();
    }
    if (r.now_s() >= next_reference) {
      next_reference += 30;
      auto check = g->check(r.call_timeout);
      if (!check) return fail("checking a GEMM output", check.error().message);
      if (!check->passed && ++c.errors && wrong.size() < 5)
        wrong.push_back(fmt::format("against the float64 reference at {:.1f} s: {}", r.now_s(), check->summary));
    }
  }
  collect();
  c.seconds = r.now_s() - t0;
  c.rate = sustained(c.series, std::min(5.0, c.seconds / 4));
  c.summary = fmt::format("{} N={}: {} sustained over {:.0f} s, {} batches of {}", device::to_string(p), n,
                          c.rate ? rate_text(*c.rate, c.unit) : "-", c.seconds, c.series.size(), batch);
  judge_rate(c, r.sku && r.sku->gemm_precision == p ? r.sku->gemm : std::nullopt, "sustained GEMM");
  // Throughput that decays: the first minute against the last (after a one-minute run or more).
  if (!c.series.empty() && c.series.back().t_s - c.series.front().t_s >= 120) {
    const double start = c.series.front().t_s, end = c.series.back().t_s;
    const auto early = mean_between(c.series, start + 5, start + 65), late = mean_between(c.series, end - 60, end + 1);
    if (early && late) {
      c.evidence.push_back(
          fmt::format("first minute {}, last minute {}", rate_text(*early, c.unit), rate_text(*late, c.unit)));
      if (*late < 0.9 * *early) {
        c.verdict = worse(c.verdict, Verdict::warn);
        c.action = stronger(c.action, Action::investigate);
        c.evidence.back() +=
            fmt::format(": {:.0f}% lower at the end (heat, clocks or a neighbour)", 100 * (1 - *late / *early));
      }
    }
  }
  if (c.errors > 0) {
    c.verdict = Verdict::fail;
    c.action = Action::drain_and_replace;
    for (const auto& w : wrong) c.evidence.push_back("wrong: " + w);
    c.summary = fmt::format("{}: the device computes wrong numbers",
                            counted(c.errors, "wrong GEMM result", "wrong GEMM results"));
  }
  return c;
}

CheckResult judge_power(bool on_cpu, const SkuThresholds* sku, const std::vector<Sample>& samples, double from_s,
                        double to_s) {
  CheckResult c;
  c.kind = CheckKind::power;
  c.unit = "W";
  std::vector<double> watts;
  std::optional<double> cap;
  for (const auto& s : samples)
    if (s.t_s >= from_s + std::min(5.0, (to_s - from_s) / 4) && s.t_s <= to_s && s.power_w) {
      watts.push_back(*s.power_w);
      if (s.power_cap_w) cap = *s.power_cap_w;
    }
  c.seconds = to_s - from_s;
  if (watts.empty()) {
    c.verdict = Verdict::skip;
    c.summary = on_cpu ? "the CPU backend has no power reading" : "no telemetry source reports this device's power";
    c.evidence.push_back(c.summary);
    return c;
  }
  std::sort(watts.begin(), watts.end());
  c.rate = watts[watts.size() * 9 / 10];  // p90 under load
  c.summary = fmt::format("{:.0f} W under sustained GEMM (p90 of {} readings){}", *c.rate, watts.size(),
                          cap ? fmt::format(", cap {:.0f} W", *cap) : "");
  if (!cap || *cap <= 0 || !sku || !sku->power_min_ratio) {
    c.reference = "no reference";
    c.evidence.push_back(c.summary + (cap ? "; no power target for this SKU" : "; the cap is not reported"));
    return c;
  }
  c.expected = *cap;
  c.floor = *sku->power_min_ratio * *cap;
  c.reference = sku->power_source;
  c.evidence.push_back(
      fmt::format("{:.0f}% of the cap; at least {:.0f}% wanted", 100 * *c.rate / *cap, 100 * *sku->power_min_ratio));
  if (*c.rate < *c.floor) {
    c.verdict = Verdict::fail;
    c.action = Action::investigate;
  }
  return c;
}

}  // namespace dcukit::stress
