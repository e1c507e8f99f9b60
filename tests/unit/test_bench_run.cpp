// bench::run, the one entry point: the run_info header with the results-changing environment,
// a stop request that keeps what was measured, a hung device abandoned after its deadline, and
// bad requests refused before anything runs.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <thread>

#include "bench/run.h"
#include "core/units.h"
#include "device/cpu/cpu_backend.h"
#include "util/signals.h"

using namespace dcukit;

namespace {

bench::Options tiny() {
  bench::Options o;
  o.gemm_sizes = {64};
  o.precisions = {device::Precision::fp64};
  o.memory_sizes = {core::kMiB};
  o.stream_types = {device::Precision::fp64};
  o.transfer_sizes = {core::kMiB};
  o.iterations = 2;
  o.warmup = 1;
  o.timeout = std::chrono::seconds(60);
  return o;
}

// What a hanging device shares with the test: released to end the hang, and whether the
// measuring thread has let go of the device.
struct HangState {
  std::atomic<bool> release{false};
  std::atomic<bool> closed{false};
};

// A CPU device whose synchronize() hangs past any deadline, as a wedged GPU does in the runtime.
class HangingDevice final : public device::Device {
public:
  explicit HangingDevice(std::shared_ptr<HangState> s) : m_state(std::move(s)) {}
  ~HangingDevice() override { m_state->closed = true; }
  int index() const override { return 0; }
  Result<device::MemInfo> memory_info() override { return m_cpu.memory_info(); }
  Result<void*> allocate(device::MemKind k, std::size_t n) override { return m_cpu.allocate(k, n); }
  void release(device::MemKind k, void* p) noexcept override { m_cpu.release(k, p); }
  Status pin(void* p, std::size_t n) override { return m_cpu.pin(p, n); }
  Status unpin(void* p) override { return m_cpu.unpin(p); }
  Result<device::Stream> create_stream() override { return m_cpu.create_stream(); }
  Status copy(void* d, const void* s, std::size_t n, device::Stream st) override { return m_cpu.copy(d, s, n, st); }
  Status fill(device::Precision t, void* d, double v, std::size_t n, device::Stream s) override {
    return m_cpu.fill(t, d, v, n, s);
  }
  Status stream_op(device::StreamOp op, device::Precision t, void* a, void* b, void* c, double sc, std::size_t n,
                   device::Stream s) override {
    return m_cpu.stream_op(op, t, a, b, c, sc, n, s);
  }
  Result<double> dot_result(device::Stream s, std::chrono::milliseconds t) override { return m_cpu.dot_result(s, t); }
  Status launch_empty(device::Stream s) override { return m_cpu.launch_empty(s); }
  Status chase(const std::uint32_t* c, std::uint64_t n, std::uint32_t* out, device::Stream s) override {
    return m_cpu.chase(c, n, out, s);
  }
  std::string gemm_unsupported(device::Precision p) override { return m_cpu.gemm_unsupported(p); }
  Status gemm(const device::GemmArgs& g, device::Stream s) override { return m_cpu.gemm(g, s); }
  Result<device::Event> create_event() override { return m_cpu.create_event(); }
  Status record(device::Event e, device::Stream s) override { return m_cpu.record(e, s); }
  Result<double> elapsed_ms(device::Event a, device::Event b, std::chrono::milliseconds t) override {
    return m_cpu.elapsed_ms(a, b, t);
  }
  void destroy_event(device::Event e) noexcept override { m_cpu.destroy_event(e); }
  Status synchronize(std::chrono::milliseconds) override {
    for (int i = 0; i < 1000 && !m_state->release; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return {};
  }

private:
  std::shared_ptr<HangState> m_state;
  device::cpu::CpuDevice m_cpu{0};
};

class HangingBackend final : public device::Backend {
public:
  explicit HangingBackend(std::shared_ptr<HangState> s) : m_state(std::move(s)) {}
  device::BackendKind kind() const override { return device::BackendKind::cpu; }
  std::vector<std::pair<std::string, std::string>> versions() override { return {{"fake", "1"}}; }
  int device_count() override { return 1; }
  Result<device::DeviceInfo> device_info(int i) override { return m_cpu.device_info(i); }
  Result<std::unique_ptr<device::Device>> open(int) override {
    return std::unique_ptr<device::Device>(std::make_unique<HangingDevice>(m_state));
  }
  Result<bool> can_access_peer(const device::Device&, const device::Device&) override { return true; }
  Status enable_peer_access(device::Device&, device::Device&) override { return {}; }
  Status copy_peer(device::Device&, void*, device::Device&, const void*, std::size_t, device::Stream) override {
    return Error{"not here"};
  }

private:
  std::shared_ptr<HangState> m_state;
  device::cpu::CpuBackend m_cpu;
};

std::shared_ptr<device::Registry> registry_of(std::unique_ptr<device::Backend> backend) {
  std::vector<device::BackendSlot> slots(1);
  slots[0].kind = device::BackendKind::cpu;
  slots[0].device_count = backend->device_count();
  slots[0].backend = std::move(backend);
  return std::make_shared<device::Registry>(device::Registry::of(std::move(slots)));
}

}  // namespace

TEST(BenchRun, TheReportStartsWithRunInfoAndTheResultsChangingEnvironment) {
  setenv("DCUKIT_GEMM_ALGOS", "4", 1);
  bench::Request r;
  r.backend = device::BackendKind::cpu;
  r.options = tiny();
  r.options.only = {"latency"};
  r.command = "dcukit bench --only latency";
  auto report = bench::run(r);
  unsetenv("DCUKIT_GEMM_ALGOS");
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(report->run_info.tool, "dcukit bench");
  EXPECT_EQ(report->run_info.command, "dcukit bench --only latency");
  EXPECT_FALSE(report->run_info.started_at.empty());
  const auto& env = report->run_info.environment;
  EXPECT_NE(std::find(env.begin(), env.end(), std::pair<std::string, std::string>{"DCUKIT_GEMM_ALGOS", "4"}),
            env.end());
  EXPECT_EQ(report->suite, "quick");
  EXPECT_TRUE(report->ok());
  EXPECT_FALSE(report->interrupted);
}

TEST(BenchRun, AStopKeepsWhatWasMeasuredAndSaysItWasInterrupted) {
  auto& stop = util::StopToken::process();
  stop.reset();
  bench::Request r;
  r.backend = device::BackendKind::cpu;
  r.options = tiny();
  r.options.only = {"gemm", "memory", "latency"};
  r.options.gemm_sizes = {64, 96};
  r.options.iterations = 1000;
  int lines = 0;
  // Lines: "gemm fp64 N=64 ...", its result, then "gemm fp64 N=96 ...": stop as the second case starts.
  r.progress = [&](const std::string&) {
    if (++lines == 3) stop.request_stop();
  };
  auto report = bench::run(r);
  stop.reset();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->interrupted);
  EXPECT_FALSE(report->abandoned);
  EXPECT_FALSE(report->ok());
  ASSERT_EQ(report->devices.size(), 1u);
  const auto& results = report->devices[0].results;
  ASSERT_EQ(results.size(), 2u);  // memory and latency never started
  EXPECT_EQ(results[0].outcome, bench::Outcome::ok) << results[0].reason;
  EXPECT_EQ(results[0].samples_ms.size(), 1000u);
  EXPECT_EQ(results[1].outcome, bench::Outcome::failed);
  EXPECT_NE(results[1].reason.find("interrupted after 0 of 1000 timed runs"), std::string::npos) << results[1].reason;
  ASSERT_FALSE(report->errors.empty());
  EXPECT_NE(report->errors.back().find("the results measured so far are kept"), std::string::npos);
}

TEST(BenchRun, AHungDeviceIsAbandonedAfterItsDeadlineWithTheResultsSoFar) {
  auto state = std::make_shared<HangState>();
  bench::Request r;
  r.registry = registry_of(std::make_unique<HangingBackend>(state));
  r.backend = device::BackendKind::cpu;
  r.options = tiny();
  r.options.only = {"latency"};
  r.options.timeout = std::chrono::seconds(1);
  r.hang_grace = std::chrono::milliseconds(200);
  const auto t0 = std::chrono::steady_clock::now();
  auto report = bench::run(r);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_TRUE(report->abandoned);
  EXPECT_FALSE(report->interrupted);
  EXPECT_LT(waited, 5.0);
  ASSERT_FALSE(report->errors.empty());
  EXPECT_NE(report->errors.back().find("latency on cpu device 0 hung past its deadline (--timeout 1s)"),
            std::string::npos)
      << report->errors.back();
  ASSERT_EQ(report->devices.size(), 1u);
  // Let the abandoned thread finish, so that it does not outlive the test.
  state->release = true;
  for (int i = 0; i < 500 && !state->closed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(state->closed);
}

TEST(BenchRun, BadRequestsAreRefusedBeforeAnythingRuns) {
  bench::Request r;
  r.backend = device::BackendKind::cpu;
  r.options = tiny();
  r.devices = {0, 0};
  auto twice = bench::run(r);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("--device 0,0: device 0 is named twice"), std::string::npos)
      << twice.error().message;
  r.devices = {};
  r.options.only = {"gemmm"};
  auto unknown = bench::run(r);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("--only gemmm"), std::string::npos);
}
