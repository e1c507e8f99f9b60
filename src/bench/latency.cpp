// The launch-latency benchmark: an empty kernel's launch (the enqueue alone, averaged over a
// batch of launches) and launch plus synchronize, in microseconds.
#include <chrono>
#include <fmt/format.h>

#include "bench/benchmark.h"

namespace dcukit::bench {
namespace {

using Clock = std::chrono::steady_clock;

class LatencyBenchmark final : public Benchmark {
public:
  std::string key() const override { return "latency"; }
  std::string description() const override { return "empty-kernel launch, and launch + synchronize, in microseconds"; }

  void run(Context& ctx, std::vector<Measurement>& out) override {
    ctx.say("latency ...");
    out.push_back(launch_only(ctx));
    out.push_back(launch_and_sync(ctx));
  }

private:
  static constexpr int kBatch = 1000;

  // Each sample: kBatch launches back to back, host time per launch; then a synchronize that
  // must succeed for the batch to count (the kernels ran).
  Measurement launch_only(Context& ctx) {
    Measurement m = new_case("latency", "launch (enqueue, per kernel)");
    m.params = {{"kind", "launch"}, {"batch", std::to_string(kBatch)}};
    auto& b = ctx.backend;
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 30;
    for (int r = 0; r < runs + 2; ++r) {
      if (ctx.deadline.expired()) return mark_failed(m, "deadline passed (--timeout)");
      const auto t0 = Clock::now();
      for (int i = 0; i < kBatch; ++i)
        if (auto st = b.launch_empty(); !st) return mark_failed(m, st.message());
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / kBatch;
      if (auto st = b.synchronize(ctx.deadline.remaining()); !st) return mark_failed(m, st.message());
      if (r >= 2) m.samples_ms.push_back(us / 1000.0);
    }
    return done(ctx, m);
  }

  Measurement launch_and_sync(Context& ctx) {
    Measurement m = new_case("latency", "launch + synchronize");
    m.params = {{"kind", "launch_sync"}};
    auto samples = time_with_host_clock(ctx, 10, ctx.options.iterations > 0 ? ctx.options.iterations : 1000,
                                        [&] { return ctx.backend.launch_empty(); });
    if (!samples) return mark_failed(m, samples.error().message);
    m.samples_ms = std::move(*samples);
    return done(ctx, m);
  }

  static Measurement done(Context& ctx, Measurement& m) {
    m.time_ms = core::summarize(m.samples_ms);
    m.rate = m.time_ms.median * 1000.0;
    m.rate_unit = "us";
    m.check = "every launch returned success and the device synchronized";
    m.peak_note = "no published figure";
    ctx.say(fmt::format("latency {}: {:.2f} us", m.name, m.rate));
    return m;
  }
};

} // namespace

std::unique_ptr<Benchmark> make_latency_benchmark() { return std::make_unique<LatencyBenchmark>(); }

} // namespace dcukit::bench
