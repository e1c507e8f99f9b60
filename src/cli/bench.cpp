// `dcukit bench`: parses and checks the options (every number against its range, every output
// path before anything runs), hands a Request to bench::run, renders and writes the Report.
#include "cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "bench/render.h"
#include "bench/run.h"
#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "util/text.h"
#include "core/units.h"
#include "device/comm/collective.h"
#include "device/comm/mpi.h"
#include "telemetry/capture.h"
#include "telemetry/links.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::cli {
namespace {

/// Array and copy sizes: at least 8 bytes, at most 64 TiB (far beyond any device today).
constexpr std::uint64_t kMinSize = 8, kMaxSize = 64 * 1024 * core::kGiB;
/// GEMM sizes N.
constexpr int kMaxN = 65536;

struct BenchArgs {
  std::string backend, suite = "quick", peak;
  std::vector<int> devices;
  bool list_backends = false;
  std::vector<std::string> only, precisions, memory_sizes, stream_types, transfer_sizes;
  std::vector<int> sizes;
  int iterations = 0, warmup = 0, cpu_devices = 1;
  std::string p2p_size, collective_sizes, topology;
  std::vector<std::string> collectives;
  double min_busbw_gb = 0;
  double timeout_s = 600;
  Output json{"--json", ""}, markdown{"--markdown", ""};
  std::string command;
};

Result<std::vector<std::uint64_t>> sizes_of(const std::vector<std::string>& texts, const char* flag) {
  std::vector<std::uint64_t> out;
  for (const auto& t : texts) {
    auto v = core::parse_size(t);
    if (!v) return Error{fmt::format("{} {}: {}", flag, t, v.error().message)};
    if (*v == 0 || *v % 8 != 0)
      return Error{fmt::format("{} {}: the size must be a positive multiple of 8 bytes", flag, t)};
    if (*v < kMinSize || *v > kMaxSize)
      return Error{fmt::format("{} {}: outside {} to {}; pass a size such as 64MiB or 4GiB", flag, t,
                               core::format_bytes(kMinSize), core::format_bytes(kMaxSize))};
    out.push_back(*v);
  }
  return out;
}

/// The GPU-to-GPU links of a captured topology output (nvidia-smi topo -m, rocm-smi/hy-smi
/// --showtopo, amd-smi topology), by device index: "NV18", "XGMI, 1 hop, weight 15".
Result<std::map<std::pair<int, int>, std::string>> links_of(const std::string& path) {
  auto snap = telemetry::read_capture_file(path);
  if (!snap) return Error{fmt::format("--topology {}: {}", path, snap.error().message)};
  std::map<std::pair<int, int>, std::string> out;
  auto gpu = [](const std::string& name) -> std::optional<int> {  // "GPU3", "GPU[3]"
    int n = -1;
    if (std::sscanf(name.c_str(), "GPU%d", &n) == 1 || std::sscanf(name.c_str(), "GPU[%d]", &n) == 1)
      if (n >= 0) return n;
    return std::nullopt;
  };
  for (const auto& l : snap->topology.links) {
    const auto a = gpu(l.a), b = gpu(l.b);
    if (!a || !b || *a == *b || !l.type) continue;
    out[{std::min(*a, *b), std::max(*a, *b)}] = telemetry::describe(l);
  }
  if (out.empty())
    return Error{fmt::format("--topology {}: the file ({}) shows no link between two GPUs; pass the output of "
                             "`nvidia-smi topo -m`, `rocm-smi --showtopo`, `hy-smi --showtopo` or `amd-smi topology`",
                             path, snap->format.empty() ? "format not recognised" : snap->format)};
  return out;
}

// --collective-sizes: nccl-tests' -b/-e/-f as MIN:MAX (factors of 2) or MIN:MAX:FACTOR, or a list.
Result<std::vector<std::uint64_t>> collective_sizes_of(const std::string& text) {
  if (text.empty()) return std::vector<std::uint64_t>{};
  if (text.find(':') == std::string::npos) return sizes_of(util::split(text, ','), "--collective-sizes");
  const auto parts = util::split(text, ':');
  if (parts.size() < 2 || parts.size() > 3)
    return Error{fmt::format("--collective-sizes {}: write MIN:MAX or MIN:MAX:FACTOR (8B:1GiB:2), or a list", text)};
  auto ends = sizes_of({parts[0], parts[1]}, "--collective-sizes");
  if (!ends) return ends.error();
  const std::uint64_t lo = (*ends)[0], hi = (*ends)[1];
  long long factor = 2;
  if (parts.size() == 3) factor = util::parse_int(parts[2]).value_or(0);
  if (factor < 2 || factor > 1024)
    return Error{fmt::format("--collective-sizes {}: the factor {} must be a whole number from 2 to 1024", text, parts[2])};
  if (lo > hi) return Error{fmt::format("--collective-sizes {}: MIN is above MAX", text)};
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = lo; s <= hi && out.size() < 64; s *= static_cast<std::uint64_t>(factor)) out.push_back(s);
  return out;
}

Result<bench::Options> to_options(const BenchArgs& a) {
  bench::Options o;
  o.suite = bench::parse_suite(a.suite).value_or(bench::Suite::quick);  // CLI11 checked the name
  o.only = a.only;
  for (int n : a.sizes)
    if (n <= 0 || n > kMaxN) return Error{fmt::format("--sizes {}: N must be between 1 and {}", n, kMaxN)};
  o.gemm_sizes = a.sizes;
  for (const auto& p : a.precisions) {
    auto v = device::parse_precision(p);
    if (!v)
      return Error{fmt::format("--precisions {}: unknown; choose from fp64, fp32, tf32, fp16, bf16, fp8, int8", p)};
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
  if (!a.p2p_size.empty()) {
    auto v = sizes_of({a.p2p_size}, "--p2p-size");
    if (!v) return v.error();
    o.p2p_bytes = v->front();
  }
  if (!a.topology.empty()) {
    auto links = links_of(a.topology);
    if (!links) return links.error();
    o.links = *links;
    o.links_source = a.topology;
  }
  auto cs = collective_sizes_of(a.collective_sizes);
  if (!cs) return cs.error();
  o.collective_sizes = *cs;
  for (const auto& c : a.collectives) {
    if (!device::comm::parse_collective(c))
      return Error{fmt::format("--collectives {}: unknown; choose from all_reduce, all_gather, reduce_scatter, "
                               "broadcast, reduce, all_to_all, send_recv",
                               c)};
    o.collectives.push_back(c);
  }
  o.min_busbw = a.min_busbw_gb * 1e9;
  o.iterations = a.iterations;
  o.warmup = a.warmup;
  o.timeout = std::chrono::milliseconds(std::llround(a.timeout_s * 1000));
  if (!a.peak.empty()) {
    auto p = core::parse_peak_overrides(a.peak);
    if (!p) return p.error();
    o.peak_overrides = *p;
  }
  return o;
}

int list_backends(device::Registry& registry) {
  for (auto& s : registry.slots()) {
    const auto name = device::to_string(s.kind);
    if (s.loaded())
      fmt::print("{:<5} loaded    {} device(s){}\n", name, s.device_count,
                 s.library.empty() ? "" : "  (" + s.library + ")");
    else
      fmt::print("{:<5} missing   {}\n", name, s.error);
  }
  return 0;
}

// bench says "gemm fp16 N=4096 ..." as a case starts and "gemm fp16 N=4096: 701 TFLOPS" as it
// ends: the first is the step under way, the second a line kept.
std::function<void(const std::string&)> bench_progress() {
  auto& p = progress();
  if (!p.shown()) return {};
  return [&p](const std::string& line) {
    constexpr std::string_view kRunning = " ...";
    if (line.size() > kRunning.size() && line.ends_with(kRunning))
      p.status(line.substr(0, line.size() - kRunning.size()), "running");
    else
      p.line("  " + line);
  };
}

constexpr std::string_view kRankLost = "its report was not gathered";

// Every rank's report at rank 0, merged (bench::merge_ranks); elsewhere this rank's own, sent.
// A rank that does not send within `timeout` is named, and rank 0 keeps what it has.
bench::Report gather_ranks(device::comm::MpiComm& world, bench::Report mine, std::chrono::milliseconds timeout) {
  const std::string text = world.host() + "\n" + util::json_text(bench::to_json(mine), -1);
  auto all = world.gather(text, timeout);
  if (!all) {
    mine.errors.push_back(fmt::format("{}: {}", kRankLost, all.error().message));
    return mine;
  }
  if (world.rank() != 0) return mine;
  std::vector<bench::Report> ranks;
  std::vector<std::string> hosts;
  for (std::size_t r = 0; r < all->size(); ++r) {
    const std::string& t = (*all)[r];
    const auto nl = t.find('\n');
    hosts.push_back(t.substr(0, nl));
    auto rep = r == 0 ? Result<bench::Report>(mine) : bench::from_json(nl == std::string::npos ? "" : t.substr(nl + 1));
    if (!rep) {
      mine.errors.push_back(fmt::format("rank {}: its report could not be read: {}", r, rep.error().message));
      return mine;
    }
    ranks.push_back(std::move(*rep));
  }
  return bench::merge_ranks(std::move(ranks), hosts);
}

ExitCode run_bench(const BenchArgs& a) {
  (void)util::StopToken::process();  // SIGINT/SIGTERM from here on stop the run, never kill it unwritten
  auto registry = std::make_shared<device::Registry>(device::Registry::load(a.cpu_devices));
  if (a.list_backends) return static_cast<ExitCode>(list_backends(*registry));
  auto options = to_options(a);
  if (!options) {
    print_error("bench", options.error().message);
    return ExitCode::bad_input;
  }
  const Output& json = a.json;
  const Output& markdown = a.markdown;
  if (auto st = check_outputs({json, markdown}); !st) {
    print_error("bench", st.message());
    return ExitCode::bad_input;
  }
  bench::Request request;
  request.registry = registry;
  if (!a.backend.empty()) request.backend = device::parse_backend_kind(a.backend);  // CLI11 checked the name
  request.devices = a.devices;
  request.options = *options;
  request.command = a.command;
  // Under mpirun or srun: one rank a device, the collectives across the ranks, rank 0 writes.
  std::shared_ptr<device::comm::MpiComm> world;
  if (const auto launch = device::comm::launch_from_environment()) {
    auto w = device::comm::mpi_world();
    if (!w) {
      print_error("bench", fmt::format("started by {} as rank {} of {}, but {}", launch->launcher, launch->rank,
                                       launch->size, w.error().message));
      return ExitCode::failed;
    }
    world = std::move(*w);
    request.world = world;
    auto* slot = request.backend ? registry->find(*request.backend) : registry->default_slot();
    if (request.devices.empty() && slot && slot->device_count > 0) request.devices = {launch->local_rank % slot->device_count};
  }
  const bool root = !world || world->rank() == 0;
  if (root) request.progress = bench_progress();
  auto report = bench::run(request);
  if (!report) {
    print_error("bench", report.error().message);  // every rank was given the same input and says so
    return ExitCode::bad_input;
  }
  if (!request.options.links_source.empty())
    report->notes.push_back(fmt::format("p2p link types from --topology {} (the captured topology of the host it "
                                        "was taken on; device i is its GPU i)",
                                        request.options.links_source));
  if (world) {
    auto merged = gather_ranks(*world, std::move(*report), request.options.timeout);
    if (!root) {  // rank 0 says what failed, unless this rank could not reach it
      for (const auto& e : merged.errors)
        if (e.find(kRankLost) != std::string::npos) print_error("bench", fmt::format("rank {}: {}", world->rank(), e));
      return merged.ok() ? ExitCode::ok : ExitCode::failed;
    }
    report = std::move(merged);
  }
  progress().close();
  std::string versions;
  for (const auto& [name, version] : report->versions) versions += fmt::format("; {} {}", name, version);
  print_verbose("bench", fmt::format("the {} backend, suite {}, {} device(s){}", device::to_string(report->backend),
                                     report->suite, report->devices.size(), versions));
  if (const std::string notes = bench::render_notes(*report); !notes.empty() && !presentation().quiet)
    fmt::print(stderr, "{}", util::terminal_safe(notes));  // diagnostics: stderr
  if (!json.to_stdout() && !markdown.to_stdout()) print_report([&] { return bench::render_text(*report); });
  std::fflush(stdout);
  bool written = emit("bench", json, util::json_text(bench::to_json(*report), 2) + "\n");
  written = emit("bench", markdown, bench::render_markdown(*report)) && written;
  // Where the reports went, on stderr.
  for (const auto* out : {&json, &markdown})
    if (out->asked() && !out->to_stdout() && written) print_note("bench", "wrote " + out->path);
  // The failures, on stderr: with -q or stdout sent elsewhere, they are still said.
  if (const auto failures = report->failures(); !failures.empty()) {
    print_error("bench", fmt::format("{} failure(s):", failures.size()));
    for (const auto& f : failures) fmt::print(stderr, "  {}\n", f);
  }
  const ExitCode code = report->interrupted       ? ExitCode::interrupted
                        : report->ok() && written ? ExitCode::ok
                                                  : ExitCode::failed;
  if (report->abandoned) {  // a thread is stuck in the device runtime: no destructors, no exit handlers
    std::fflush(nullptr);
    std::_Exit(static_cast<int>(code));
  }
  if (world && !report->errors.empty() && report->errors.back().find(kRankLost) != std::string::npos)
    world->abort_job(static_cast<int>(code));  // a rank is stuck: end the job rather than wait on it
  return code;
}

}  // namespace

void setup_bench(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<BenchArgs>();
  auto* sub = app.add_subcommand(
      "bench", "Measure GEMM, device memory, host/device transfers and launch latency against published peaks");
  sub->add_option("--backend", a->backend, "cpu, cuda or hip (default: the first GPU backend with a device, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda", "hip"}));
  sub->add_option("--device", a->devices, "Device indices to run on, each once, e.g. 0,1 (default: all)")
      ->delimiter(',');
  sub->add_flag("--list-backends", a->list_backends, "Show each backend as loaded, or the loader's message");
  sub->add_option("--suite", a->suite, "quick (about two minutes on a GPU) or full")
      ->check(CLI::IsMember({"quick", "full"}));
  sub->add_option("--only", a->only, "Benchmarks to run: gemm, memory, transfer, latency, p2p, collectives")
      ->delimiter(',');
  sub->add_option("--cpu-devices", a->cpu_devices, "Host \"devices\" the CPU backend shows (1 to 64; default 1)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--p2p-size", a->p2p_size, "Bytes per peer copy (default 256MiB; 16MiB on the CPU)");
  sub->add_option("--topology", a->topology,
                  "A captured nvidia-smi topo -m, rocm-smi/hy-smi --showtopo or amd-smi topology output: each p2p "
                  "pair's link type is taken from it")
      ->check(CLI::ExistingFile);
  sub->add_option("--collective-sizes", a->collective_sizes,
                  "Collective sizes as MIN:MAX[:FACTOR] or a list (default 8B:1GiB; 8B:1MiB on the CPU)");
  sub->add_option("--collectives", a->collectives,
                  "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv (default all)")
      ->delimiter(',');
  sub->add_option("--min-busbw", a->min_busbw_gb, "Fail the run when the collectives' average busbw is under this, GB/s")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--sizes", a->sizes, "GEMM sizes N (1 to 65536), e.g. 2048,4096,8192,12288")->delimiter(',');
  sub->add_option("--precisions", a->precisions, "GEMM precisions: fp64, fp32, tf32, fp16, bf16, fp8, int8")
      ->delimiter(',');
  sub->add_option("--memory-sizes", a->memory_sizes, "STREAM array sizes (8 B to 64 TiB), e.g. 256MiB,1GiB,4GiB")
      ->delimiter(',');
  sub->add_option("--stream-types", a->stream_types, "STREAM element types: fp64, fp32")->delimiter(',');
  sub->add_option("--transfer-sizes", a->transfer_sizes, "Host/device copy sizes (8 B to 64 TiB), e.g. 64MiB,1GiB")
      ->delimiter(',');
  sub->add_option("--iterations", a->iterations, "Timed runs per case (default: 30 GEMM, 100 STREAM, 20 transfer)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--warmup", a->warmup, "Untimed runs before timing")->check(CLI::Range(1, 10000));
  sub->add_option("--timeout", a->timeout_s, "Deadline per benchmark and device (600, 10m)")
      ->transform(seconds_in(1, 86400));
  sub->add_option("--peak", a->peak, "Override published peaks, e.g. fp16=480e12,hbm=1.6e12,pcie=63e9");
  add_output(sub, a->json, "Results with every sample as JSON");
  add_output(sub, a->markdown, "The report as Markdown");
  add_presentation(sub);
  sub->callback([a, &runner] {
    a->command = command_line();
    runner = [a] { return run_bench(*a); };
  });
}

}  // namespace dcukit::cli
