// The CPU backend runs every benchmark at small sizes and passes its checks; a planted wrong
// result in GEMM, a STREAM kernel or a copy is caught by the check, not reported as a rate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "bench/benchmark.h"
#include "bench/run.h"
#include "core/units.h"
#include "device/cpu/cpu_backend.h"

using namespace dcukit;
using bench::Outcome;
using device::Precision;

namespace {

bench::Options small_options() {
  bench::Options o;
  o.gemm_sizes = {64, 96};
  o.precisions = {Precision::fp32, Precision::fp64, Precision::fp16};
  o.memory_sizes = {core::kMiB};
  o.stream_types = {Precision::fp32, Precision::fp64};
  o.transfer_sizes = {core::kMiB};
  o.iterations = 3;
  o.warmup = 1;
  o.timeout = std::chrono::seconds(60);
  return o;
}

// A CPU device that returns wrong answers on demand (forwarding everything else).
class FaultyDevice final : public device::Device {
public:
  bool break_gemm = false, break_triad = false, break_copy = false;
  device::cpu::CpuDevice cpu{0};

  int index() const override { return 0; }
  Result<device::MemInfo> memory_info() override { return cpu.memory_info(); }
  Result<void*> allocate(device::MemKind k, std::size_t n) override { return cpu.allocate(k, n); }
  void release(device::MemKind k, void* p) noexcept override { cpu.release(k, p); }
  Status pin(void* p, std::size_t n) override { return cpu.pin(p, n); }
  Status unpin(void* p) override { return cpu.unpin(p); }
  Result<device::Stream> create_stream() override { return cpu.create_stream(); }
  Status copy(void* dst, const void* src, std::size_t n, device::Stream s) override {
    auto st = cpu.copy(dst, src, n, s);
    if (break_copy && n >= 4096) {  // a fixed wrong byte (a flip would cancel over two copies)
      auto& byte = static_cast<unsigned char*>(dst)[n / 2];
      byte = byte == 0x5A ? 0xA5 : 0x5A;
    }
    return st;
  }
  Status fill(Precision t, void* d, double v, std::size_t n, device::Stream s) override {
    return cpu.fill(t, d, v, n, s);
  }
  Status stream_op(device::StreamOp op, Precision t, void* a, void* b, void* c, double sc, std::size_t n,
                   device::Stream s) override {
    auto st = cpu.stream_op(op, t, a, b, c, sc, n, s);
    if (break_triad && op == device::StreamOp::triad) {
      if (t == Precision::fp64)
        static_cast<double*>(a)[n - 1] += 1.0;
      else
        static_cast<float*>(a)[n - 1] += 1.0f;
    }
    return st;
  }
  Result<double> dot_result(device::Stream s, std::chrono::milliseconds t) override { return cpu.dot_result(s, t); }
  Status launch_empty(device::Stream s) override { return cpu.launch_empty(s); }
  Status chase(const std::uint32_t* c, std::uint64_t n, std::uint32_t* out, device::Stream s) override {
    return cpu.chase(c, n, out, s);
  }
  std::string gemm_unsupported(Precision p) override { return cpu.gemm_unsupported(p); }
  Status gemm(const device::GemmArgs& g, device::Stream s) override {
    auto st = cpu.gemm(g, s);
    if (break_gemm) {
      // One element off by a little: C[m-1 + (n-1)·m], a corner the check always samples.
      if (g.precision == Precision::fp64)
        static_cast<double*>(g.c)[g.m * g.n - 1] *= 1.001;
      else
        static_cast<float*>(g.c)[g.m * g.n - 1] *= 1.001f;
    }
    return st;
  }
  Result<device::Event> create_event() override { return cpu.create_event(); }
  Status record(device::Event e, device::Stream s) override { return cpu.record(e, s); }
  Result<double> elapsed_ms(device::Event a, device::Event b, std::chrono::milliseconds t) override {
    return cpu.elapsed_ms(a, b, t);
  }
  void destroy_event(device::Event e) noexcept override { cpu.destroy_event(e); }
  Status synchronize(std::chrono::milliseconds t) override { return cpu.synchronize(t); }
};

// Runs `benchmarks` (all when empty) on an opened device, as bench::run does for one device.
std::vector<bench::Measurement> run_on(device::Device& d, const bench::Options& o,
                                       const std::vector<std::size_t>& benchmarks = {}) {
  bench::DeviceReport dev;
  dev.info = *device::cpu::CpuBackend().device_info(0);
  const auto work = d.create_stream(), second = d.create_stream();
  EXPECT_TRUE(work.ok() && second.ok());
  std::vector<bench::Measurement> out;
  const auto all = bench::all_benchmarks();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!benchmarks.empty() && std::find(benchmarks.begin(), benchmarks.end(), i) == benchmarks.end()) continue;
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), all[i]->key()) == o.only.end()) continue;
    bench::Context ctx{d, device::BackendKind::cpu,   *work, *second, dev, nullptr,
                       o, bench::Deadline(o.timeout), {},    nullptr};
    all[i]->run(ctx, out);
  }
  return out;
}

std::vector<bench::Measurement> run_all(const bench::Options& o) {
  device::cpu::CpuDevice cpu(0);
  return run_on(cpu, o);
}

}  // namespace

TEST(BenchCpu, EveryBenchmarkRunsAndPassesItsChecks) {
  const auto results = run_all(small_options());
  int gemm = 0, memory = 0, transfer = 0, latency = 0;
  for (const auto& m : results) {
    SCOPED_TRACE(m.name + ": " + m.reason);
    if (m.benchmark == "gemm" && m.text("precision") == "fp16") {
      EXPECT_EQ(m.outcome, Outcome::skipped);
      EXPECT_NE(m.reason.find("fp16"), std::string::npos);
      continue;
    }
    EXPECT_EQ(m.outcome, Outcome::ok);
    EXPECT_GT(m.rate, 0);
    EXPECT_FALSE(m.samples_ms.empty());
    EXPECT_FALSE(m.check.empty());
    gemm += m.benchmark == "gemm";
    memory += m.benchmark == "memory";
    transfer += m.benchmark == "transfer";
    latency += m.benchmark == "latency";
  }
  EXPECT_EQ(gemm, 4);        // fp32 and fp64 at two sizes
  EXPECT_EQ(memory, 2 * 6);  // memcpy + 5 STREAM kernels, two types
  EXPECT_EQ(transfer, 6);    // H2D, D2H, both; pageable and pinned (one NUMA node here)
  EXPECT_EQ(latency, 2);
}

TEST(BenchCpu, GemmWorkIsTwoNCubed) {
  auto o = small_options();
  o.precisions = {Precision::fp64};
  o.gemm_sizes = {80};
  o.only = {"gemm"};
  const auto results = run_all(o);
  ASSERT_GE(results.size(), 1u);
  EXPECT_DOUBLE_EQ(results[0].work, 2.0 * 80 * 80 * 80);
  EXPECT_EQ(results[0].samples_ms.size(), 3u);
}

TEST(BenchCpu, PlantedWrongGemmResultIsCaught) {
  FaultyDevice b;
  b.break_gemm = true;
  auto o = small_options();
  o.precisions = {Precision::fp32, Precision::fp64};
  const auto results = run_on(b, o);
  int caught = 0;
  for (const auto& m : results)
    if (m.benchmark == "gemm") {
      EXPECT_EQ(m.outcome, Outcome::failed) << m.name;
      EXPECT_NE(m.reason.find("wrong result"), std::string::npos) << m.reason;
      EXPECT_FALSE(m.percent_of_peak().has_value());
      ++caught;
    }
  EXPECT_EQ(caught, 4);
}

TEST(BenchCpu, PlantedWrongTriadIsCaught) {
  FaultyDevice b;
  b.break_triad = true;
  const auto results = run_on(b, small_options());
  int failed = 0;
  for (const auto& m : results)
    if (m.benchmark == "memory" && m.text("kernel") != "d2d_memcpy") {
      EXPECT_EQ(m.outcome, Outcome::failed) << m.name;
      ++failed;
    }
  EXPECT_EQ(failed, 10);  // the arrays are checked together: every STREAM row of both types
}

TEST(BenchCpu, PlantedCorruptCopyIsCaught) {
  FaultyDevice b;
  b.break_copy = true;
  auto o = small_options();
  o.only = {"transfer"};
  const auto results = run_on(b, o);
  ASSERT_FALSE(results.empty());
  for (const auto& m : results) {
    if (m.benchmark != "transfer") continue;
    EXPECT_EQ(m.outcome, Outcome::failed) << m.name;
    EXPECT_NE(m.reason.find("differs"), std::string::npos) << m.reason;
  }
}

TEST(BenchCpu, OversizedArraysFailBeforeAllocatingAndNameTheFreeMemory) {
  device::cpu::CpuDevice cpu(0);
  auto o = small_options();
  o.memory_sizes = {1024 * core::kGiB};
  o.stream_types = {Precision::fp64};
  const auto out = run_on(cpu, o, {1});
  ASSERT_EQ(out.size(), 6u);
  for (const auto& m : out) {
    EXPECT_EQ(m.outcome, Outcome::failed);
    EXPECT_NE(m.reason.find("1 TiB"), std::string::npos) << m.reason;
    EXPECT_NE(m.reason.find("free"), std::string::npos) << m.reason;
  }
}

TEST(BenchRunner, ValidateNamesBadInput) {
  auto registry = device::Registry::load();
  bench::Request r;
  r.backend = device::BackendKind::cpu;
  r.devices = {3};
  auto st = bench::validate(registry, r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--device 3"), std::string::npos);
  r.devices = {};
  r.options.only = {"gemmm"};
  st = bench::validate(registry, r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("gemm, memory, transfer, latency"), std::string::npos);
}

TEST(BenchRunner, FillsTheReportWithHostAndDevice) {
  bench::Request r;
  r.backend = device::BackendKind::cpu;
  r.options = small_options();
  r.options.only = {"latency"};
  auto report = bench::run(r);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_EQ(report->devices.size(), 1u);
  EXPECT_EQ(report->backend, device::BackendKind::cpu);
  EXPECT_FALSE(report->run_info.host.kernel.empty());
  EXPECT_EQ(report->devices[0].results.size(), 2u);
  EXPECT_TRUE(report->ok());
}
