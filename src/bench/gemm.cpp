// The GEMM benchmark: C = Aᵀ·B, square N, in every precision the device has, through the
// vendor BLAS; 2·N³ operations per run; sampled outputs checked against a float64 reference.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench/benchmark.h"
#include "device/gemm_data.h"
#include "device/gemm_check.h"
#include "core/units.h"

namespace dcukit::bench {
namespace {

using device::MemKind;
using device::Precision;

std::vector<int> gemm_default_sizes(const Context& ctx) {
  if (ctx.on_cpu()) return {1024, 2048};
  if (ctx.options.suite == Suite::full) return {2048, 4096, 8192, 12288};
  return {4096, 8192};
}

std::vector<Precision> default_precisions() {
  return {Precision::fp16, Precision::bf16, Precision::fp32, Precision::tf32,
          Precision::fp64, Precision::int8, Precision::fp8};
}

// Input sets to rotate through so that repeated runs do not read A and B from cache.
int input_sets(std::uint64_t ab_bytes, std::uint64_t cache_bytes) {
  if (cache_bytes == 0 || ab_bytes >= 2 * cache_bytes) return 1;
  return static_cast<int>(std::min<std::uint64_t>(16, (4 * cache_bytes + ab_bytes - 1) / ab_bytes));
}

class GemmBenchmark final : public Benchmark {
public:
  std::string key() const override { return "gemm"; }
  std::string description() const override { return "matrix multiply throughput per precision and size (vendor BLAS)"; }

  void run(Context& ctx, std::vector<Measurement>& out) override {
    const auto sizes = ctx.options.gemm_sizes.empty() ? gemm_default_sizes(ctx) : ctx.options.gemm_sizes;
    const auto precisions = ctx.options.precisions.empty() ? default_precisions() : ctx.options.precisions;
    for (auto p : precisions)
      for (int n : sizes) {
        if (ctx.stopped()) return;
        out.push_back(run_case(ctx, p, n));
      }
  }

  TableSpec table() const override {
    return {
        "GEMM (C = A·B, square N, 2·N³ per run)",
        {text_column("precision", "precision", true), integer_column("N", "n"),
         time_column("median ms", &core::Summary::median), time_column("min ms", &core::Summary::min),
         time_column("max ms", &core::Summary::max), scaled_rate_column("FLOPS"), percent_column(), placement_column(), status_column()},
        {"FLOPS at the median time; int8 rows are OPS. Each row's output was checked against a float64 "
         "reference."}};
  }

private:
  Measurement run_case(Context& ctx, Precision p, int n) {
    const std::string name = fmt::format("{} N={}", device::to_string(p), n);
    auto& b = ctx.device;
    const std::vector<Param> params = {{"precision", device::to_string(p)}, {"n", n}};
    if (auto why = b.gemm_unsupported(p); !why.empty())
      return with_params(failed_case("gemm", name, why, Outcome::skipped), params);
    const std::uint64_t elems = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
    const std::uint64_t in_bytes = elems * device::input_size(p), out_bytes = elems * device::output_size(p);
    const int sets = input_sets(2 * in_bytes, ctx.info.info.l2_cache_bytes);
    const std::uint64_t need = 2 * in_bytes * static_cast<std::uint64_t>(sets) + out_bytes;
    if (auto mem = b.memory_info(); mem && need > mem->free)
      return with_params(
          failed_case("gemm", name,
                      fmt::format("N={} needs {} of device memory; the device has {} free: pass smaller --sizes", n,
                                  core::format_bytes(need), core::format_bytes(mem->free))),
          params);
    Measurement m = new_case("gemm", name);
    m.params = params;
    m.params.emplace_back("input_sets", sets);
    ctx.say(fmt::format("gemm {} ...", name));

    std::vector<Buffer> a(static_cast<std::size_t>(sets)), bm(static_cast<std::size_t>(sets));
    std::vector<char> host(std::max(in_bytes, out_bytes));
    auto upload = [&](Buffer& dst, std::uint64_t seed) -> Status {
      device::generate(p, seed, elems, host.data());
      if (auto st = b.copy(dst.get(), host.data(), in_bytes, ctx.stream); !st) return st;
      return b.synchronize(ctx.deadline.remaining());
    };
    for (int s = 0; s < sets; ++s) {
      for (auto* buf : {&a[static_cast<std::size_t>(s)], &bm[static_cast<std::size_t>(s)]}) {
        auto r = allocate(b, MemKind::device, in_bytes);
        if (!r) return mark_failed(m, r.error().message);
        *buf = std::move(*r);
      }
      if (auto st = upload(a[static_cast<std::size_t>(s)], seed_a(s)); !st) return mark_failed(m, st.message());
      if (auto st = upload(bm[static_cast<std::size_t>(s)], seed_b(s)); !st) return mark_failed(m, st.message());
    }
    auto c = allocate(b, MemKind::device, out_bytes);
    if (!c) return mark_failed(m, c.error().message);
    std::memset(host.data(), 0xFF, out_bytes);  // poison: NaN in every float format, -1 in int32
    if (auto st = b.copy(c->get(), host.data(), out_bytes, ctx.stream); !st) return mark_failed(m, st.message());

    int call = 0;
    auto enqueue = [&]() -> Status {
      const auto s = static_cast<std::size_t>(call++ % sets);
      return b.gemm({p, n, n, n, a[s].get(), bm[s].get(), c->get()}, ctx.stream);
    };
    const int runs = ctx.options.iterations > 0 ? ctx.options.iterations : 30;
    const int warmup = ctx.options.warmup > 0 ? ctx.options.warmup : 5;
    auto samples = time_with_events(ctx, warmup, runs, enqueue);
    if (!samples) return mark_failed(m, samples.error().message);
    m.samples_ms = std::move(*samples);

    const int last = (call - 1) % sets;
    if (auto st = b.copy(host.data(), c->get(), out_bytes, ctx.stream); !st) return mark_failed(m, st.message());
    if (auto st = b.synchronize(ctx.deadline.remaining()); !st) return mark_failed(m, st.message());
    const device::GemmCheck check = device::check_gemm(p, n, seed_a(last), seed_b(last), host.data());
    m.check = check.summary;
    m.work = 2.0 * static_cast<double>(n) * n * n;
    m.rate_unit = p == Precision::int8 ? RateUnit::op_per_s : RateUnit::flop_per_s;
    if (!check.passed) return mark_failed(m, "wrong result: " + check.summary);
    finish(m, ctx, std::string(device::to_string(p)));
    ctx.say(fmt::format("gemm {}: {}", name, core::format_ops(m.rate, p == Precision::int8)));
    return m;
  }

  static Measurement with_params(Measurement m, std::vector<Param> params) {
    m.params = std::move(params);
    return m;
  }

  static std::uint64_t seed_a(int set) { return 1000 + 2 * static_cast<std::uint64_t>(set); }
  static std::uint64_t seed_b(int set) { return 1001 + 2 * static_cast<std::uint64_t>(set); }
};

}  // namespace

std::unique_ptr<Benchmark> make_gemm_benchmark() {
  return std::make_unique<GemmBenchmark>();
}

}  // namespace dcukit::bench
