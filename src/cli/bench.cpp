// `dcukit bench`: options, the backend list, progress, a watchdog, and the report files.
#include "cli/bench.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "bench/render.h"
#include "bench/runner.h"
#include "core/units.h"
#include "util/files.h"
#include "util/host.h"

namespace dcukit::cli {
namespace {

struct BenchArgs {
  std::string backend, suite = "quick", peak;
  std::vector<int> devices;
  bool list_backends = false, quiet = false;
  std::vector<std::string> only, precisions, memory_sizes, stream_types, transfer_sizes;
  std::vector<int> sizes;
  int iterations = 0, warmup = 0, timeout_s = 600;
  std::string json_path, markdown_path;
  std::string command;
};

std::atomic<bool> g_interrupted{false};

Result<std::vector<std::uint64_t>> sizes_of(const std::vector<std::string>& texts, const char* flag) {
  std::vector<std::uint64_t> out;
  for (const auto& t : texts) {
    auto v = core::parse_size(t);
    if (!v) return Error{fmt::format("{}: {}", flag, v.error().message)};
    if (*v == 0 || *v % 8 != 0) return Error{fmt::format("{} {}: the size must be a positive multiple of 8 bytes", flag, t)};
    out.push_back(*v);
  }
  return out;
}

Result<bench::Options> to_options(const BenchArgs& a) {
  bench::Options o;
  o.suite = a.suite == "full" ? bench::Suite::full : bench::Suite::quick;
  o.only = a.only;
  for (int n : a.sizes)
    if (n <= 0 || n > 65536) return Error{fmt::format("--sizes {}: N must be between 1 and 65536", n)};
  o.gemm_sizes = a.sizes;
  for (const auto& p : a.precisions) {
    auto v = device::parse_precision(p);
    if (!v) return Error{fmt::format("--precisions {}: unknown; choose from fp64, fp32, tf32, fp16, bf16, fp8, int8", p)};
    o.precisions.push_back(*v);
  }
  for (const auto& t : a.stream_types) {
    auto v = device::parse_precision(t);
    if (!v || (*v != device::Precision::fp32 && *v != device::Precision::fp64))
      return Error{fmt::format("--stream-types {}: choose fp32 or fp64", t)};
    o.stream_types.push_back(*v);
  }
  auto mem = sizes_of(a.memory_sizes, "--memory-sizes");
  if (!mem) return mem.error();
  o.memory_sizes = *mem;
  auto tr = sizes_of(a.transfer_sizes, "--transfer-sizes");
  if (!tr) return tr.error();
  o.transfer_sizes = *tr;
  o.iterations = a.iterations;
  o.warmup = a.warmup;
  o.timeout = std::chrono::seconds(a.timeout_s);
  if (!a.peak.empty()) {
    auto p = core::parse_peak_overrides(a.peak);
    if (!p) return p.error();
    o.peak_overrides = *p;
  }
  return o;
}

int list_backends(device::Registry& registry) {
  for (auto& s : registry.slots()) {
    if (s.loaded()) fmt::print("{:<5} loaded    {} device(s){}\n", s.name, s.device_count, s.library.empty() ? "" : "  (" + s.library + ")");
    else fmt::print("{:<5} missing   {}\n", s.name, s.error);
  }
  return 0;
}

// Writes what was measured; used at the end, and by the watchdog when a device hangs.
bool write_outputs(const BenchArgs& a, const bench::Report& report) {
  bool ok = true;
  if (!a.json_path.empty())
    if (auto st = util::write_file(a.json_path, bench::to_json(report).dump(2) + "\n"); !st) {
      fmt::print(stderr, "dcukit bench: {}\n", st.message());
      ok = false;
    }
  if (!a.markdown_path.empty())
    if (auto st = util::write_file(a.markdown_path, bench::render_markdown(report)); !st) {
      fmt::print(stderr, "dcukit bench: {}\n", st.message());
      ok = false;
    }
  return ok;
}

// Ends the process when a benchmark outlives its deadline by a grace period (a call hung in
// the runtime), or on Ctrl-C, after writing what was measured so far.
void watchdog(const BenchArgs& a, bench::RunState& state, const std::atomic<bool>& finished) {
  using namespace std::chrono;
  while (!finished) {
    std::this_thread::sleep_for(milliseconds(200));
    const auto deadline = state.deadline_ns.load();
    const bool hung = deadline != 0 && steady_clock::now().time_since_epoch().count() > deadline + duration_cast<nanoseconds>(seconds(30)).count();
    if (!hung && !g_interrupted) continue;
    std::lock_guard lock(state.mutex);
    state.report.errors.push_back(g_interrupted ? "interrupted: the results measured so far are kept"
                                                : fmt::format("{} hung past its deadline (--timeout {} s) and was abandoned", state.current, a.timeout_s));
    fmt::print(stderr, "dcukit bench: {}\n", state.report.errors.back());
    write_outputs(a, state.report);
    std::fflush(nullptr);
    std::_Exit(g_interrupted ? static_cast<int>(ExitCode::interrupted) : static_cast<int>(ExitCode::failed));
  }
}

ExitCode run_bench(const BenchArgs& a) {
  auto registry = device::Registry::load();
  if (a.list_backends) return static_cast<ExitCode>(list_backends(registry));
  auto options = to_options(a);
  if (!options) {
    fmt::print(stderr, "dcukit bench: {}\n", options.error().message);
    return ExitCode::bad_input;
  }
  bench::RunRequest request{a.backend, a.devices, *options, {}};
  if (!a.quiet && isatty(STDERR_FILENO)) request.progress = [](const std::string& line) { fmt::print(stderr, "  {}\n", line); };
  if (auto st = bench::validate(registry, request); !st) {
    fmt::print(stderr, "dcukit bench: {}\n", st.message());
    return ExitCode::bad_input;
  }
  bench::RunState state;
  state.report.dcukit_version = DCUKIT_VERSION;
  state.report.command = a.command;
  state.report.started_at = util::utc_timestamp();
  state.report.suite = a.suite;
  std::signal(SIGINT, [](int) { g_interrupted = true; });
  std::atomic<bool> finished{false};
  std::thread dog(watchdog, std::cref(a), std::ref(state), std::cref(finished));
  bench::run(registry, request, state);
  finished = true;
  dog.join();
  std::signal(SIGINT, SIG_DFL);
  fmt::print("{}", bench::render_text(state.report));
  const bool written = write_outputs(a, state.report);
  return state.report.ok() && written ? ExitCode::ok : ExitCode::failed;
}

} // namespace

void setup_bench(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<BenchArgs>();
  auto* sub = app.add_subcommand("bench", "Measure GEMM, device memory, host transfers and launch latency against published peaks");
  sub->add_option("--backend", a->backend, "cpu, cuda or hip (default: the first GPU backend with a device, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda", "hip"}));
  sub->add_option("--device", a->devices, "Device indices to run on, e.g. 0,1 (default: all)")->delimiter(',');
  sub->add_flag("--list-backends", a->list_backends, "Show each backend as loaded, or the loader's message");
  sub->add_option("--suite", a->suite, "quick (about two minutes on a GPU) or full")->check(CLI::IsMember({"quick", "full"}));
  sub->add_option("--only", a->only, "Benchmarks to run: gemm, memory, transfer, latency")->delimiter(',');
  sub->add_option("--sizes", a->sizes, "GEMM sizes N, e.g. 2048,4096,8192,12288")->delimiter(',');
  sub->add_option("--precisions", a->precisions, "GEMM precisions: fp64, fp32, tf32, fp16, bf16, fp8, int8")->delimiter(',');
  sub->add_option("--memory-sizes", a->memory_sizes, "STREAM array sizes, e.g. 256MiB,1GiB,4GiB")->delimiter(',');
  sub->add_option("--stream-types", a->stream_types, "STREAM element types: fp64, fp32")->delimiter(',');
  sub->add_option("--transfer-sizes", a->transfer_sizes, "Host/device copy sizes, e.g. 64MiB,1GiB")->delimiter(',');
  sub->add_option("--iterations", a->iterations, "Timed runs per case (default: 30 GEMM, 100 STREAM, 20 transfer)")->check(CLI::Range(1, 100000));
  sub->add_option("--warmup", a->warmup, "Untimed runs before timing")->check(CLI::Range(1, 10000));
  sub->add_option("--timeout", a->timeout_s, "Deadline per benchmark and device, in seconds")->check(CLI::Range(1, 86400));
  sub->add_option("--peak", a->peak, "Override published peaks, e.g. fp16=480e12,hbm=1.6e12,pcie=63e9");
  sub->add_option("--json", a->json_path, "Write results with every sample as JSON");
  sub->add_option("--markdown", a->markdown_path, "Write a Markdown report");
  sub->add_flag("-q,--quiet", a->quiet, "No progress lines");
  sub->callback([a, &runner] {
    a->command = command_line();
    runner = [a] { return run_bench(*a); };
  });
}

} // namespace dcukit::cli
