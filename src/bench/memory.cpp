// The device-memory benchmark: device-to-device memcpy, and BabelStream's copy, scale, add,
// triad and dot (its definitions, its order, its byte weights), counting bytes read plus
// written. Arrays are checked against BabelStream's golden values after the runs.
#include <fmt/format.h>

#include "bench/benchmark.h"
#include "bench/stream_check.h"
#include "core/units.h"

namespace dcukit::bench {
namespace {

using device::MemKind;
using device::Precision;
using device::StreamOp;

constexpr double kScalar = 0.4;  // BabelStream's startScalar
constexpr double kInitA = 0.1, kInitB = 0.2, kInitC = 0.0;

std::vector<std::uint64_t> memory_default_sizes(const Context& ctx) {
  if (ctx.on_cpu()) return {256 * core::kMiB};
  if (ctx.options.suite == Suite::full) return {256 * core::kMiB, core::kGiB, 4 * core::kGiB};
  return {4 * core::kGiB};
}

class MemoryBenchmark final : public Benchmark {
public:
  std::string key() const override { return "memory"; }
  std::string description() const override { return "device memory bandwidth: D2D memcpy and the STREAM kernels"; }

  void run(Context& ctx, std::vector<Measurement>& out) override {
    auto types = ctx.options.stream_types;
    if (types.empty())
      types = ctx.options.suite == Suite::full ? std::vector{Precision::fp64, Precision::fp32}
                                               : std::vector{Precision::fp64};
    const auto sizes = ctx.options.memory_sizes.empty() ? memory_default_sizes(ctx) : ctx.options.memory_sizes;
    for (auto size : sizes)
      for (auto t : types) {
        if (ctx.stopped()) return;
        run_size(ctx, t, size, out);
      }
  }

  TableSpec table() const override {
    return {
        "Device memory (bytes read + written)",
        {text_column("kernel", "kernel", true), text_column("type", "type"), bytes_column("array", "array_bytes"),
         time_column("median ms", &core::Summary::median), rate_column("GB/s", 1e9), percent_column(), placement_column(), status_column()},
        {"copy, scale, add, triad, dot as BabelStream defines them (2, 2, 3, 3, 2 arrays touched); d2d memcpy "
         "counts 2x its size."}};
  }

private:
  static std::string label(Precision t, std::uint64_t size) {
    return fmt::format("{} {}", device::to_string(t), core::format_bytes(size));
  }

  void run_size(Context& ctx, Precision t, std::uint64_t size, std::vector<Measurement>& out) {
    auto& b = ctx.device;
    const std::size_t elem = t == Precision::fp64 ? 8 : 4;
    const std::size_t n = size / elem;
    auto fail_all = [&](const std::string& why) {
      out.push_back(failed_case("memory", "d2d memcpy " + label(t, size), why));
      for (auto op : device::kAllStreamOps)
        out.push_back(failed_case("memory", fmt::format("{} {}", device::to_string(op), label(t, size)), why));
    };
    if (auto mem = b.memory_info(); mem && 3 * size > mem->free)
      return fail_all(
          fmt::format("--memory-sizes {} needs three arrays, {}; the device has {} free: pass a smaller size",
                      core::format_bytes(size), core::format_bytes(3 * size), core::format_bytes(mem->free)));
    Buffer a, bb, c;
    for (auto* buf : {&a, &bb, &c}) {
      auto r = allocate(b, MemKind::device, n * elem);
      if (!r) return fail_all(r.error().message);
      *buf = std::move(*r);
    }
    ctx.say(fmt::format("memory {} ...", label(t, size)));
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : (ctx.on_cpu() ? 20 : 100);
    const int warmup = ctx.options.warmup > 0 ? ctx.options.warmup : 2;
    out.push_back(run_memcpy(ctx, t, a, c, n, runs, warmup, label(t, size)));
    run_stream(ctx, t, a, bb, c, n, runs, warmup, label(t, size), out);
  }

  Measurement run_memcpy(Context& ctx, Precision t, Buffer& a, Buffer& c, std::size_t n, int runs, int warmup,
                         const std::string& lbl) {
    auto& b = ctx.device;
    const std::size_t bytes = n * (t == Precision::fp64 ? 8 : 4);
    Measurement m = new_case("memory", "d2d memcpy " + lbl);
    m.params = {{"kernel", "d2d_memcpy"}, {"type", device::to_string(t)}, {"array_bytes", bytes}};
    if (auto st = b.fill(t, a.get(), 1.25, n, ctx.stream); !st) return mark_failed(m, st.message());
    if (auto st = b.fill(t, c.get(), -3.0, n, ctx.stream); !st) return mark_failed(m, st.message());
    auto samples = time_with_events(ctx, warmup, runs, [&] { return b.copy(c.get(), a.get(), bytes, ctx.stream); });
    if (!samples) return mark_failed(m, samples.error().message);
    m.samples_ms = std::move(*samples);
    auto check = check_array(b, ctx.stream, t, c.get(), n, 1.25, ctx.deadline.remaining());
    m.check = check.summary;
    if (!check.passed) return mark_failed(m, "wrong result: " + check.summary);
    m.work = 2.0 * static_cast<double>(bytes);
    m.rate_unit = RateUnit::byte_per_s;
    finish(m, ctx, "hbm");
    return m;
  }

  void run_stream(Context& ctx, Precision t, Buffer& a, Buffer& bb, Buffer& c, std::size_t n, int runs, int warmup,
                  const std::string& lbl, std::vector<Measurement>& out) {
    auto& b = ctx.device;
    const std::size_t elem = t == Precision::fp64 ? 8 : 4;
    std::vector<Measurement> ms;
    for (auto op : device::kAllStreamOps) {
      Measurement m = new_case("memory", fmt::format("{} {}", device::to_string(op), lbl));
      m.params = {{"kernel", device::to_string(op)}, {"type", device::to_string(t)}, {"array_bytes", n * elem}};
      m.work = static_cast<double>(device::arrays_touched(op)) * static_cast<double>(n * elem);
      m.rate_unit = RateUnit::byte_per_s;
      ms.push_back(std::move(m));
    }
    auto fail_all = [&](const std::string& why) {
      for (auto& m : ms) out.push_back(mark_failed(m, why));
    };
    for (auto [buf, v] : {std::pair{&a, kInitA}, {&bb, kInitB}, {&c, kInitC}})
      if (auto st = b.fill(t, buf->get(), v, n, ctx.stream); !st) return fail_all(st.message());
    auto timed = [&](StreamOp op) -> Result<double> {
      auto r = time_with_events(ctx, 0, 1,
                                [&] { return b.stream_op(op, t, a.get(), bb.get(), c.get(), kScalar, n, ctx.stream); });
      if (!r) return r.error();
      return r->front();
    };
    double dot = 0;
    const int total = warmup + runs;
    for (int it = 0; it < total; ++it) {
      for (std::size_t k = 0; k < device::kAllStreamOps.size(); ++k) {
        auto ms_k = timed(device::kAllStreamOps[k]);
        if (!ms_k) return fail_all(ms_k.error().message);
        if (it >= warmup) ms[k].samples_ms.push_back(*ms_k);
      }
      auto d = b.dot_result(ctx.stream, ctx.deadline.remaining());
      if (!d) return fail_all(d.error().message);
      dot = *d;
    }
    const auto check =
        check_stream(b, ctx.stream, t, a.get(), bb.get(), c.get(), n, total, dot, ctx.deadline.remaining());
    for (auto& m : ms) {
      m.check = check.summary;
      if (!check.passed) {
        out.push_back(mark_failed(m, "wrong result: " + check.summary));
        continue;
      }
      finish(m, ctx, "hbm");
      out.push_back(std::move(m));
    }
    if (check.passed)
      ctx.say(fmt::format("memory {}: triad {}", lbl, core::format_bandwidth(out[out.size() - 2].rate)));
  }
};

}  // namespace

std::unique_ptr<Benchmark> make_memory_benchmark() {
  return std::make_unique<MemoryBenchmark>();
}

}  // namespace dcukit::bench
