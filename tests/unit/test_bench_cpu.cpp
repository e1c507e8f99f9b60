// The CPU backend runs every benchmark at small sizes and passes its checks; a planted wrong
// result in GEMM, a STREAM kernel or a copy is caught by the check, not reported as a rate.
#include <gtest/gtest.h>

#include <cstring>

#include "bench/benchmark.h"
#include "bench/runner.h"
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

// A CPU backend that returns wrong answers on demand (forwarding everything else).
class FaultyBackend final : public device::Backend {
public:
  bool break_gemm = false, break_triad = false, break_copy = false;
  device::cpu::CpuBackend cpu;

  std::string name() const override { return "faulty"; }
  std::vector<std::pair<std::string, std::string>> versions() override { return cpu.versions(); }
  int device_count() override { return 1; }
  Result<device::DeviceInfo> device_info(int i) override { return cpu.device_info(i); }
  Status select(int i) override { return cpu.select(i); }
  Result<device::MemInfo> memory_info() override { return cpu.memory_info(); }
  Result<void*> allocate(device::MemKind k, std::size_t n) override { return cpu.allocate(k, n); }
  void release(device::MemKind k, void* p) noexcept override { cpu.release(k, p); }
  Status pin(void* p, std::size_t n) override { return cpu.pin(p, n); }
  Status unpin(void* p) override { return cpu.unpin(p); }
  Status copy(void* dst, const void* src, std::size_t n, int s) override {
    auto st = cpu.copy(dst, src, n, s);
    if (break_copy && n >= 4096) {  // a fixed wrong byte (a flip would cancel over two copies)
      auto& byte = static_cast<unsigned char*>(dst)[n / 2];
      byte = byte == 0x5A ? 0xA5 : 0x5A;
    }
    return st;
  }
  Status fill(Precision t, void* d, double v, std::size_t n) override { return cpu.fill(t, d, v, n); }
  Status stream(device::StreamOp op, Precision t, void* a, void* b, void* c, double s, std::size_t n) override {
    auto st = cpu.stream(op, t, a, b, c, s, n);
    if (break_triad && op == device::StreamOp::triad) {
      if (t == Precision::fp64) static_cast<double*>(a)[n - 1] += 1.0;
      else static_cast<float*>(a)[n - 1] += 1.0f;
    }
    return st;
  }
  Result<double> dot_result() override { return cpu.dot_result(); }
  Status launch_empty() override { return cpu.launch_empty(); }
  std::string gemm_unsupported(Precision p) override { return cpu.gemm_unsupported(p); }
  Status gemm(const device::GemmArgs& g) override {
    auto st = cpu.gemm(g);
    if (break_gemm) {
      // One element off by a little: C[m-1 + (n-1)·m], a corner the check always samples.
      if (g.precision == Precision::fp64) static_cast<double*>(g.c)[g.m * g.n - 1] *= 1.001;
      else static_cast<float*>(g.c)[g.m * g.n - 1] *= 1.001f;
    }
    return st;
  }
  Result<device::EventHandle> create_event() override { return cpu.create_event(); }
  Status record(device::EventHandle e, int s) override { return cpu.record(e, s); }
  Result<double> elapsed_ms(device::EventHandle a, device::EventHandle b, std::chrono::milliseconds t) override {
    return cpu.elapsed_ms(a, b, t);
  }
  void destroy_event(device::EventHandle e) noexcept override { cpu.destroy_event(e); }
  Status synchronize(std::chrono::milliseconds t) override { return cpu.synchronize(t); }
};

std::vector<bench::Measurement> run_all(device::Backend& b, const bench::Options& o) {
  bench::DeviceReport dev;
  dev.info = *b.device_info(0);
  std::vector<bench::Measurement> out;
  for (auto& bm : bench::all_benchmarks()) {
    bench::Context ctx{b, dev, nullptr, o, bench::Deadline(o.timeout), {}};
    bm->run(ctx, out);
  }
  return out;
}

} // namespace

TEST(BenchCpu, EveryBenchmarkRunsAndPassesItsChecks) {
  device::cpu::CpuBackend cpu;
  const auto results = run_all(cpu, small_options());
  int gemm = 0, memory = 0, transfer = 0, latency = 0;
  for (const auto& m : results) {
    SCOPED_TRACE(m.name + ": " + m.reason);
    if (m.benchmark == "gemm" && m.param("precision") == "fp16") {
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
  EXPECT_EQ(gemm, 4);           // fp32 and fp64 at two sizes
  EXPECT_EQ(memory, 2 * 6);     // memcpy + 5 STREAM kernels, two types
  EXPECT_EQ(transfer, 6);       // H2D, D2H, both; pageable and pinned (one NUMA node here)
  EXPECT_EQ(latency, 2);
}

TEST(BenchCpu, GemmWorkIsTwoNCubed) {
  device::cpu::CpuBackend cpu;
  auto o = small_options();
  o.precisions = {Precision::fp64};
  o.gemm_sizes = {80};
  o.only = {"gemm"};
  const auto results = run_all(cpu, o);
  ASSERT_GE(results.size(), 1u);
  EXPECT_DOUBLE_EQ(results[0].work, 2.0 * 80 * 80 * 80);
  EXPECT_EQ(results[0].samples_ms.size(), 3u);
}

TEST(BenchCpu, PlantedWrongGemmResultIsCaught) {
  FaultyBackend b;
  b.break_gemm = true;
  auto o = small_options();
  o.precisions = {Precision::fp32, Precision::fp64};
  const auto results = run_all(b, o);
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
  FaultyBackend b;
  b.break_triad = true;
  const auto results = run_all(b, small_options());
  int failed = 0;
  for (const auto& m : results)
    if (m.benchmark == "memory" && m.param("kernel") != "d2d_memcpy") {
      EXPECT_EQ(m.outcome, Outcome::failed) << m.name;
      ++failed;
    }
  EXPECT_EQ(failed, 10);  // the arrays are checked together: every STREAM row of both types
}

TEST(BenchCpu, PlantedCorruptCopyIsCaught) {
  FaultyBackend b;
  b.break_copy = true;
  auto o = small_options();
  o.only = {"transfer"};
  const auto results = run_all(b, o);
  ASSERT_FALSE(results.empty());
  for (const auto& m : results) {
    if (m.benchmark != "transfer") continue;
    EXPECT_EQ(m.outcome, Outcome::failed) << m.name;
    EXPECT_NE(m.reason.find("differs"), std::string::npos) << m.reason;
  }
}

TEST(BenchCpu, OversizedArraysFailBeforeAllocatingAndNameTheFreeMemory) {
  device::cpu::CpuBackend cpu;
  auto o = small_options();
  o.memory_sizes = {1024 * core::kGiB};
  o.stream_types = {Precision::fp64};
  bench::DeviceReport dev;
  dev.info = *cpu.device_info(0);
  std::vector<bench::Measurement> out;
  bench::Context ctx{cpu, dev, nullptr, o, bench::Deadline(o.timeout), {}};
  bench::all_benchmarks()[1]->run(ctx, out);
  ASSERT_EQ(out.size(), 6u);
  for (const auto& m : out) {
    EXPECT_EQ(m.outcome, Outcome::failed);
    EXPECT_NE(m.reason.find("1 TiB"), std::string::npos) << m.reason;
    EXPECT_NE(m.reason.find("free"), std::string::npos) << m.reason;
  }
}

TEST(BenchRunner, ValidateNamesBadInput) {
  auto registry = device::Registry::load();
  bench::RunRequest r;
  r.backend = "cpu";
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
  auto registry = device::Registry::load();
  bench::RunRequest r;
  r.backend = "cpu";
  r.options = small_options();
  r.options.only = {"latency"};
  bench::RunState state;
  bench::run(registry, r, state);
  ASSERT_EQ(state.report.devices.size(), 1u);
  EXPECT_EQ(state.report.backend, "cpu");
  EXPECT_FALSE(state.report.host.kernel.empty());
  EXPECT_EQ(state.report.devices[0].results.size(), 2u);
  EXPECT_TRUE(state.report.ok());
}
