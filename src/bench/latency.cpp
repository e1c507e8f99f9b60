// The launch-latency benchmark: an empty kernel's launch (the enqueue alone, averaged over a
// batch of launches) and launch plus synchronize, in microseconds.
#include <fmt/format.h>

#include <chrono>

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
    for (auto* one : {&LatencyBenchmark::launch_only, &LatencyBenchmark::launch_and_sync}) {
      if (ctx.stopped()) return;
      out.push_back(one(ctx));
    }
  }

  TableSpec table() const override {
    TableSpec t{"Launch latency",
                {name_column("what"), time_column("median us", &core::Summary::median, 1000),
                 time_column("p99 us", &core::Summary::p99, 1000), time_column("min us", &core::Summary::min, 1000),
                 status_column()},
                {}};
    t.peak_notes = false;  // no published figure to compare with
    return t;
  }

private:
  static constexpr int kBatch = 1000;

  // Each sample: kBatch launches back to back, host time per launch; then a synchronize that
  // must succeed for the batch to count (the kernels ran).
  static Measurement launch_only(Context& ctx) {
    Measurement m = new_case("latency", "launch (enqueue, per kernel)");
    m.params = {{"kind", "launch"}, {"batch", kBatch}};
    auto& b = ctx.device;
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 30;
    for (int r = 0; r < runs + 2; ++r) {
      if (ctx.stopped()) return mark_failed(m, ctx.stop_reason());
      if (ctx.deadline.expired()) return mark_failed(m, "deadline passed (--timeout)");
      const auto t0 = Clock::now();
      for (int i = 0; i < kBatch; ++i)
        if (auto st = b.launch_empty(ctx.stream); !st) return mark_failed(m, st.message());
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / kBatch;
      if (auto st = b.synchronize(ctx.deadline.remaining()); !st) return mark_failed(m, st.message());
      if (r >= 2) m.samples_ms.push_back(us / 1000.0);
    }
    return done(ctx, m);
  }

  static Measurement launch_and_sync(Context& ctx) {
    Measurement m = new_case("latency", "launch + synchronize");
    m.params = {{"kind", "launch_sync"}};
    auto samples = time_with_host_clock(ctx, 10, ctx.options.iterations > 0 ? ctx.options.iterations : 1000,
                                        [&] { return ctx.device.launch_empty(ctx.stream); });
    if (!samples) return mark_failed(m, samples.error().message);
    m.samples_ms = std::move(*samples);
    return done(ctx, m);
  }

  static Measurement done(Context& ctx, Measurement& m) {
    m.time_ms = core::summarize(m.samples_ms);
    m.rate = m.time_ms.median * 1000.0;
    m.rate_unit = RateUnit::microseconds;
    m.check = "every launch returned success and the device synchronized";
    m.peak_note = "no published figure";
    ctx.say(fmt::format("latency {}: {:.2f} us", m.name, m.rate));
    return m;
  }
};

}  // namespace

std::unique_ptr<Benchmark> make_latency_benchmark() {
  return std::make_unique<LatencyBenchmark>();
}

}  // namespace dcukit::bench
