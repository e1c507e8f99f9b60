// `dcukit bench` as a user runs it: the real binary, on this GPU-less host.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "no_hang.h"
#include "tempdir.h"
#include "util/process.h"

namespace {

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// Runs a shell command line and collects what it prints on stdout, within a deadline: processes
// left holding the output (an MPI rank that outlived mpirun) cannot keep the test waiting, and
// past the deadline everything the command started is killed.
CliRun shell(const std::string& cmd) {
  CliRun r;
  auto c = dcukit::util::run_capture({"/bin/sh", "-c", cmd}, std::chrono::seconds(240));
  if (!c) {
    r.out = c.error().message;
    return r;
  }
  r.out = c->out + c->err;
  r.code = c->status.timed_out ? 124 : c->status.code;
  if (c->status.timed_out) r.out += "\n(the test's deadline of 240 s passed; every process of the command was killed)";
  return r;
}

CliRun bench_cli(const std::string& args) {
  return shell(std::string("timeout 120 ") + DCUKIT_BINARY + " " + args + " 2>&1");
}

// The JSON a run wrote, with its keys in the order written.
/// Whether process `pid` comes to hold at least `mib` MiB resident and to have used `cpu_s` of
/// CPU time, within kNoHang: how far its own work has gone, whatever the machine's load (a
/// sanitizer's allocator can make the memory figure come early; the CPU time cannot).
bool worked_that_far(pid_t pid, long mib, double cpu_s) {
  const auto end = std::chrono::steady_clock::now() + testutil::kNoHang;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  while (std::chrono::steady_clock::now() < end) {
    bool resident = false;
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("VmRSS:", 0) == 0) resident = std::stol(line.substr(6)) >= mib * 1024;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string field;
    double ticks = 0;
    for (int i = 0; i < 13 && fields >> field; ++i)
      if (i == 11 || i == 12) ticks += std::stod(field);  // utime and stime, after the state
    if (resident && ticks / tick >= cpu_s) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

nlohmann::ordered_json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return in.good() ? nlohmann::ordered_json::parse(in) : nlohmann::ordered_json();
}

const std::string kSmall =
    "bench -q --backend cpu --sizes 64 --precisions fp32 --memory-sizes 1MiB --transfer-sizes 1MiB --iterations 2";

}  // namespace

TEST(CliBench, ListBackendsExplainsWhatIsMissing) {
  const CliRun r = bench_cli("bench --list-backends");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("cpu   loaded"), std::string::npos) << r.out;
  // No GPU here: each GPU backend is listed with the loader's or the runtime's own message.
  for (const char* b : {"cuda", "hip"}) {
    const auto at = r.out.find(b);
    ASSERT_NE(at, std::string::npos) << r.out;
  }
}

TEST(CliBench, RunsOnTheCpuAndSaysSoAndWritesJsonAndMarkdown) {
  testutil::TempDir dir("cli_bench");
  const std::string json = dir.file("bench.json"), md = dir.file("bench.md");
  const CliRun r = bench_cli(kSmall + " --json " + json + " --markdown " + md);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("backend cpu"), std::string::npos) << r.out;
  std::ifstream in(json);
  ASSERT_TRUE(in.good());
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_TRUE(j["ok"].get<bool>());
  const auto& results = j["devices"][0]["results"];
  ASSERT_GT(results.size(), 10u);
  EXPECT_EQ(results[0]["benchmark"], "gemm");
  EXPECT_EQ(results[0]["samples_ms"].size(), 2u);
  EXPECT_FALSE(j["versions"].empty());
  std::ifstream mdin(md);
  std::stringstream ss;
  ss << mdin.rdbuf();
  EXPECT_NE(ss.str().find("| command | `dcukit bench"), std::string::npos);
  EXPECT_NE(ss.str().find("### GEMM"), std::string::npos);
  // The header every report starts with, and parameters that are numbers.
  EXPECT_EQ(read_json(json).begin().key(), "run_info");
  EXPECT_EQ(j["run_info"]["tool"], "dcukit bench");
  EXPECT_NE(j["run_info"]["command"].get<std::string>().find("--sizes 64"), std::string::npos);
  EXPECT_EQ(results[0]["params"]["n"], 64);
}

TEST(CliBench, BadInputNamesTheInputAndExitsTwo) {
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"bench --sizes 0", "--sizes 0"},
      {"bench --precisions fp12", "--precisions fp12"},
      {"bench --memory-sizes 3parsecs", "3parsecs"},
      {"bench --transfer-sizes 7", "multiple of 8"},
      {"bench --peak fp17=1", "fp17"},
      {"bench --backend cpu --device 5", "--device 5"},
      {"bench --only nothing", "--only nothing"},
      {"bench --suite huge", "--suite"},
      // Every number has a range, checked where it is parsed (issue 9).
      {"bench --memory-sizes 1e99", "--memory-sizes 1e99"},
      {"bench --memory-sizes nan", "--memory-sizes nan"},
      {"bench --memory-sizes -1GiB", "--memory-sizes -1GiB"},
      {"bench --transfer-sizes 1e99", "--transfer-sizes 1e99"},
      {"bench --transfer-sizes 0", "--transfer-sizes 0"},
      {"bench --sizes 1e99", "--sizes"},
      {"bench --sizes 70000", "--sizes 70000"},
      {"bench --iterations nan", "--iterations"},
      {"bench --timeout 1e300", "--timeout"},
      {"bench --backend cpu --device 0,0", "--device 0,0: device 0 is named twice"},
      // The multi-device options (issue 23).
      {"bench --cpu-devices 0", "--cpu-devices"},
      {"bench --cpu-devices 65", "--cpu-devices"},
      {"bench --collective-sizes 1GiB:8B", "MIN is above MAX"},
      {"bench --collective-sizes 8B:1GiB:1", "the factor 1"},
      {"bench --collective-sizes 8B:1GiB:x", "the factor x"},
      {"bench --collective-sizes 3B:1GiB", "multiple of 8"},
      {"bench --collectives all_sum", "--collectives all_sum"},
      {"bench --p2p-size 0", "--p2p-size 0"},
      {"bench --min-busbw -1", "--min-busbw"},
  };
  for (const auto& c : cases) {
    const CliRun r = bench_cli(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out;
  }
}

TEST(CliBench, ASizeThatDoesNotFitFailsThatCaseKeepsTheRestAndExitsOne) {
  testutil::TempDir dir("cli_bench");  // fresh: only what this run wrote can be read
  const std::string json = dir.file("partial.json");
  const CliRun r =
      bench_cli("bench -q --backend cpu --only memory,latency --memory-sizes 1024GiB --iterations 2 --json " + json);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("1 TiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("free"), std::string::npos) << r.out;
  std::ifstream in(json);
  ASSERT_TRUE(in.good());
  const auto j = nlohmann::json::parse(in);
  EXPECT_FALSE(j["ok"].get<bool>());
  int ok = 0;
  for (const auto& m : j["devices"][0]["results"]) ok += m["outcome"] == "ok";
  EXPECT_EQ(ok, 2);  // the latency cases still ran and were written
}

TEST(CliBench, PeakOverrideGivesAPercentage) {
  const CliRun r =
      bench_cli("bench -q --backend cpu --only gemm --sizes 64 --precisions fp64 --iterations 2 --peak fp64=1e9");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("%"), std::string::npos) << r.out;
}

TEST(CliBench, VersionAndHelp) {
  EXPECT_NE(bench_cli("--version").out.find("dcukit 0."), std::string::npos);
  const CliRun h = bench_cli("help bench");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--list-backends"), std::string::npos);
}

TEST(CliBench, OutputsAreCheckedBeforeAnythingIsMeasured) {
  testutil::TempDir dir("cli_bench");
  const auto t0 = std::chrono::steady_clock::now();
  const CliRun missing = bench_cli(kSmall + " --json " + dir.file("no/such/folder/r.json"));
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("--json " + dir.file("no/such/folder/r.json")), std::string::npos) << missing.out;
  EXPECT_EQ(missing.out.find("GEMM"), std::string::npos) << "it measured before checking: " << missing.out;
  const CliRun folder = bench_cli(kSmall + " --json " + dir.file("r.json") + " --markdown=" + dir.path());
  EXPECT_EQ(folder.code, 2) << folder.out;
  EXPECT_NE(folder.out.find("--markdown"), std::string::npos) << folder.out;
  EXPECT_EQ(folder.out.find("GEMM"), std::string::npos) << folder.out;
  EXPECT_FALSE(std::ifstream(dir.file("r.json")).good()) << "nothing is written when an output is bad";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, testutil::kNoHang);
}

TEST(CliBench, SigtermAndSigintBothStopWriteWhatWasMeasuredAndExit130) {
  for (const int sig : {SIGTERM, SIGINT}) {
    const std::string name = sig == SIGTERM ? "TERM" : "INT";
    testutil::TempDir dir("cli_bench");
    const std::string json = dir.file("stopped.json");
    // 64 MiB arrays and 100000 rounds: hours of work, ended by the signal once the memory case
    // runs: the two arrays its first case (d2d memcpy) writes resident and 2 s of its own CPU
    // time spent, however loaded the machine is. (The third array is touched only by the STREAM
    // kernels after it; a build that loads no GPU runtime has nothing else that large resident.)
    dcukit::util::SpawnOptions o;
    o.argv = {DCUKIT_BINARY, "bench",      "-q",         "--backend", "cpu",  "--only", "memory,latency",
              "--memory-sizes", "64MiB", "--iterations", "100000",   "--json", json};
    o.stdout_path = o.stderr_path = dir.file("out");
    auto p = dcukit::util::Process::spawn(o);
    ASSERT_TRUE(p) << p.error().message;
    ASSERT_TRUE(worked_that_far(p->pid(), 2 * 64, 2.0)) << name << ": the memory case never ran\n" << dir.read("out");
    ASSERT_TRUE(p->signal_group(sig));
    const auto st = p->wait_for(testutil::kNoHang);
    ASSERT_TRUE(st) << name << ": did not stop after the signal";
    const std::string out = dir.read("out");
    EXPECT_EQ(st->code, 130) << name << " " << st->describe() << "\n" << out;
    const auto j = read_json(json);
    ASSERT_TRUE(j.is_object()) << name;
    EXPECT_EQ(j.begin().key(), "run_info");
    EXPECT_TRUE(j["interrupted"].get<bool>()) << name;
    EXPECT_FALSE(j["ok"].get<bool>());
    const std::string errors = j["errors"].dump();
    EXPECT_NE(errors.find("interrupted by SIG" + name), std::string::npos) << errors;
    ASSERT_TRUE(j["devices"].is_array() && !j["devices"].empty()) << j.dump();
    ASSERT_FALSE(j["devices"][0]["results"].empty()) << "the case running when the signal came is recorded";
    EXPECT_NE(out.find("interrupted by SIG" + name), std::string::npos) << out;
  }
}

TEST(CliBench, QuietStillSaysWhatFailedOnStderr) {
  // stdout (the tables) is thrown away: stderr alone must say what failed and why.
  const CliRun r = shell(std::string("timeout 120 ") + DCUKIT_BINARY +
                         " bench -q --backend cpu --only memory --memory-sizes 1024GiB --iterations 2 2>&1 >/dev/null");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("failure(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 TiB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on device 0"), std::string::npos) << r.out;
}

TEST(CliBench, NoTerminalCodesWhenNotATerminal) {
  const CliRun r = shell(std::string("NO_COLOR=1 TERM=dumb timeout 120 ") + DCUKIT_BINARY + " " +
                         kSmall.substr(0, kSmall.find("-q")) + kSmall.substr(kSmall.find("-q") + 3) + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find('\033'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << r.out;
}

// Issue 23: the multi-device path without a GPU, over the CPU backend's host "devices".
TEST(CliBench, CollectivesOverFourCpuDevicesAreRightAndPlantedWrongElementsAreCounted) {
  testutil::TempDir dir("cli_bench");
  const std::string json = dir.file("coll.json"), bad = dir.file("bad.json");
  const std::string args = "bench -q --backend cpu --cpu-devices 4 --only collectives --collective-sizes 64B:16KiB:4 "
                           "--iterations 3 --warmup 1 --json ";
  const CliRun r = bench_cli(args + json);
  EXPECT_EQ(r.code, 0) << r.out;
  const auto j = read_json(json);
  ASSERT_TRUE(j.contains("group")) << j.dump();
  EXPECT_EQ(j["devices"].size(), 4u);
  std::map<std::string, int> seen;  // collective -> cases that ran and were checked
  for (const auto& m : j["group"]) {
    ASSERT_EQ(m["benchmark"], "collectives");
    if (m["outcome"] == "skipped") continue;  // 64 B under one float a rank for some
    EXPECT_EQ(m["outcome"], "ok") << m.dump();
    EXPECT_EQ(m["params"]["wrong"], 0) << m.dump();
    EXPECT_EQ(m["params"]["ranks"], 4);
    EXPECT_GT(m["rate"].get<double>(), 0);
    EXPECT_EQ(m["samples_ms"].size(), 3u);
    seen[m["params"]["collective"].get<std::string>()]++;
  }
  for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"})
    EXPECT_GE(seen[c], 6) << c << ": out of place and in place at three sizes at least";
  // busbw = algbw x 2(n-1)/n for all-reduce over 4 ranks.
  for (const auto& m : j["group"])
    if (m["params"]["collective"] == "all_reduce" && m["outcome"] == "ok") {
      EXPECT_NEAR(m["params"]["busbw"].get<double>(), m["rate"].get<double>() * 1.5, 1e-6 * m["rate"].get<double>());
    }
  // A link that corrupts one element on the last rank: counted, named, exit 1, the report written.
  const CliRun f = shell("DCUKIT_CPU_FAULTS=collective=1 timeout 120 " + std::string(DCUKIT_BINARY) + " " + args + bad +
                         " --collectives all_reduce 2>&1");
  EXPECT_EQ(f.code, 1) << f.out;
  EXPECT_NE(f.out.find("1 wrong element(s) over 4 ranks"), std::string::npos) << f.out;
  const auto b = read_json(bad);
  int failed = 0;
  for (const auto& m : b["group"])
    if (m["outcome"] == "failed") {
      ++failed;
      EXPECT_EQ(m["params"]["wrong"], 1) << m.dump();
    }
  EXPECT_GE(failed, 6);
}

TEST(CliBench, MinBusbwFailsARunUnderIt) {
  const CliRun r = bench_cli(
      "bench -q --backend cpu --cpu-devices 2 --only collectives --collective-sizes 1KiB --collectives all_reduce "
      "--iterations 2 --min-busbw 1e9");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("is under --min-busbw"), std::string::npos) << r.out;
}

TEST(CliBench, PeerMatrixOverFourCpuDevicesIsCheckedAndShownAsMatrices) {
  testutil::TempDir dir("cli_bench");
  const std::string json = dir.file("p2p.json");
  const CliRun r = bench_cli("bench --backend cpu --cpu-devices 4 --only p2p --p2p-size 1MiB --iterations 2 --json " + json);
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* title : {"ce GB/s (row: src, column: dst)", "ce bidir GB/s", "kernel read GB/s", "Across 4 device(s)"})
    EXPECT_NE(r.out.find(title), std::string::npos) << title << "\n" << r.out;
  const auto j = read_json(json);
  std::set<std::pair<int, int>> pairs;
  std::set<int> one_to_all, all_to_one;
  std::set<std::pair<int, int>> latency;
  int bidir = 0;
  for (const auto& m : j["group"]) {
    EXPECT_EQ(m["outcome"], "ok") << m.dump();
    const auto method = m["params"]["method"].get<std::string>();
    if (method != "latency") {
      EXPECT_NE(m["check"].get<std::string>().find("match"), std::string::npos) << m.dump();
    }
    if (method == "latency") {  // a pointer chase through the source's memory, us a step
      EXPECT_EQ(m["rate_unit"], "us") << m.dump();
      EXPECT_GT(m["rate"].get<double>(), 0.0) << m.dump();
      EXPECT_NE(m["check"].get<std::string>().find("as the walk on the host"), std::string::npos) << m.dump();
      latency.insert({m["params"]["src"].get<int>(), m["params"]["dst"].get<int>()});
      continue;
    }
    if (method == "one to all" || method == "all to one") {
      // nvbandwidth's fan-outs: three copies at once, their bytes together.
      EXPECT_DOUBLE_EQ(m["work"].get<double>(), 3.0 * m["params"]["bytes"].get<double>()) << m.dump();
      (method == "one to all" ? one_to_all : all_to_one)
          .insert(m["params"][method == "one to all" ? "src" : "dst"].get<int>());
      continue;
    }
    pairs.insert({m["params"]["src"].get<int>(), m["params"]["dst"].get<int>()});
    bidir += method == "ce bidir";
  }
  EXPECT_EQ(pairs.size(), 16u) << "every ordered pair, the diagonal included";
  EXPECT_EQ(bidir, 12) << "both ways for every pair of two devices";
  EXPECT_EQ(one_to_all, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(all_to_one, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(latency, pairs) << "a latency case for every pair the destination can read";
  EXPECT_NE(r.out.find("latency us a step (row: src, column: dst)"), std::string::npos) << r.out;
}

TEST(CliBench, PeerPairsTakeTheirLinkTypeFromACapturedTopology) {
  // rocm-smi --showtopo of 8 MI308X (tests/fixtures/telemetry/samples): every pair XGMI, 1 hop.
  const std::string topo = std::string(DCUKIT_FIXTURES) + "/telemetry/samples/rocm-smi/showtopo-8xmi308x-xgmi-lowpower-warning.txt";
  testutil::TempDir dir("cli_bench");
  const std::string json = dir.file("p2p.json");
  const CliRun r = bench_cli("bench --backend cpu --cpu-devices 2 --only p2p --p2p-size 1MiB --iterations 2 --topology " +
                             topo + " --json " + json);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = read_json(json);
  int linked = 0;
  for (const auto& m : j["group"]) {
    const auto link = m["params"]["link"].get<std::string>();
    if (m["params"]["src"] != m["params"]["dst"]) {
      EXPECT_NE(link.find("XGMI, 1 hop, weight 15"), std::string::npos) << link;
      ++linked;
    }
  }
  EXPECT_EQ(linked, 8) << "0->1 and 1->0: ce, ce bidir, kernel read and latency each";
  bool noted = false;
  for (const auto& n : j["notes"]) noted = noted || n.get<std::string>().find("--topology") != std::string::npos;
  EXPECT_TRUE(noted) << j["notes"].dump();
  // A file that shows no link between GPUs is refused with what to pass instead.
  const CliRun bad = bench_cli("bench --backend cpu --cpu-devices 2 --only p2p --topology " +
                               std::string(DCUKIT_FIXTURES) + "/telemetry/samples/hy-smi/showtopo-numa-section-only-hcu-8card.txt");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("shows no link between two GPUs"), std::string::npos) << bad.out;
}

// Issue 23 under MPI: `mpirun -np 4 dcukit bench --backend cpu`, one rank a process, the
// collectives through MPI's own, rank 0 writing the merged report.
namespace {

bool have_mpirun() {
  return shell("command -v mpirun >/dev/null 2>&1").code == 0;
}

// mpirun as the tests run it: as root in CI, more ranks than cores, no ptrace-based copies in a
// container. Under the sanitizer stage, leak checking is off for these processes only: Open MPI
// (not instrumented) leaks by design at MPI_Finalize and MPI_Abort (about 750 KB in 12,000
// allocations a rank), and symbolizing that report takes minutes; every other ASan and UBSan
// check still runs on dcukit's own code.
std::string mpirun(int ranks, const std::string& env = "") {
  return "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" OMPI_MCA_btl_vader_single_copy_mechanism=none " + env +
         " timeout 120 mpirun --allow-run-as-root " +
         "--oversubscribe -np " + std::to_string(ranks) + " " + DCUKIT_BINARY + " ";
}

}  // namespace

TEST(CliBenchMpi, FourRanksRunTheCollectivesRightAndRankZeroWritesEveryRank) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: install openmpi-bin (scripts/setup.sh --tests does)";
  testutil::TempDir dir("cli_bench_mpi");
  const std::string json = dir.file("mpi.json");
  const CliRun r = shell(mpirun(4) + "bench -q --backend cpu --only collectives --collective-sizes 64B:64KiB:4 "
                                     "--iterations 3 --warmup 1 --json " + json + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.out;
  const auto j = read_json(json);
  ASSERT_EQ(j["devices"].size(), 4u) << r.out;
  for (int rank = 0; rank < 4; ++rank) EXPECT_EQ(j["devices"][rank]["rank"], rank);
  int checked = 0;
  for (const auto& m : j["group"]) {
    if (m["outcome"] == "skipped") continue;  // under one float a rank, or in place where MPI's differs
    EXPECT_EQ(m["outcome"], "ok") << m.dump();
    EXPECT_EQ(m["params"]["ranks"], 4);
    EXPECT_EQ(m["params"]["wrong"], 0) << m.dump();
    ++checked;
  }
  EXPECT_GE(checked, 7 * 4) << "every collective out of place at four sizes at least";
  bool said = false;
  for (const auto& n : j["notes"]) said = said || n.get<std::string>().find("4 ranks under MPI") != std::string::npos;
  EXPECT_TRUE(said) << j["notes"].dump();
}

TEST(CliBenchMpi, APlantedWrongElementOnOneRankIsCounted) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: install openmpi-bin (scripts/setup.sh --tests does)";
  testutil::TempDir dir("cli_bench_mpi");
  const std::string json = dir.file("bad.json");
  const CliRun r = shell(mpirun(4, "DCUKIT_CPU_FAULTS=collective=1") +
                         "bench -q --backend cpu --only collectives --collective-sizes 1KiB --collectives "
                         "all_reduce,all_gather --iterations 2 --json " + json + " 2>&1");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 wrong element(s) over 4 ranks"), std::string::npos) << r.out;
  const auto j = read_json(json);
  int failed = 0;
  for (const auto& m : j["group"])
    if (m["outcome"] == "failed") {
      EXPECT_EQ(m["params"]["wrong"], 1) << m.dump();
      ++failed;
    }
  EXPECT_EQ(failed, 4);
}

TEST(CliBenchMpi, ARankThatNeverArrivesIsNamedWithinTheDeadlineNotAHang) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: install openmpi-bin (scripts/setup.sh --tests does)";
  testutil::TempDir dir("cli_bench_mpi");
  const std::string json = dir.file("stall.json");
  const CliRun r = shell(mpirun(4, "DCUKIT_CPU_FAULTS=stall=3") +
                         "bench -q --backend cpu --only collectives --collective-sizes 1KiB --collectives all_reduce "
                         "--iterations 2 --timeout 3 --json " + json + " 2>&1");
  EXPECT_NE(r.code, 124) << "the job ended itself (MPI_Abort after its deadline), not timeout(1)\n" << r.out;
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("rank(s) 3 of 4 did not arrive"), std::string::npos) << r.out;
  const auto j = read_json(json);  // rank 0 wrote what it had before ending the job
  ASSERT_FALSE(j["group"].empty()) << j.dump();
  EXPECT_NE(j["group"][0]["reason"].get<std::string>().find("rank(s) 3 of 4 did not arrive"), std::string::npos);
  EXPECT_FALSE(j["ok"].get<bool>());
}

TEST(CliBench, CompareFindsARegressionRefusesAnotherCardAndExitsAsDocumented) {
  // A real CPU run as the base, its triad's samples made even (a CPU's own spread can exceed any
  // change); the new run is its copy with the triad 20% slower (rate and samples alike), and a
  // copy whose device is another card.
  testutil::TempDir dir("cli_compare");
  const std::string run = dir.file("run.json"), base = dir.file("base.json"), slow = dir.file("slow.json"),
                    other = dir.file("other.json");
  const CliRun r = bench_cli(kSmall + " --only memory --json " + run);
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = read_json(run);
  auto triad_times = [&](double factor) {
    int changed = 0;
    for (auto& m : j["devices"][0]["results"])
      if (m["name"].get<std::string>().rfind("triad", 0) == 0) {
        const double median = m["work"].get<double>() / m["rate"].get<double>() * 1e3;  // ms
        m["rate"] = m["rate"].get<double>() / factor;
        for (auto& s : m["samples_ms"]) s = median * factor;
        for (auto& [k, v] : m["time_ms"].items())
          if (k != "count" && v.is_number()) v = k == "stddev" ? 0.0 : median * factor;
        ++changed;
      }
    return changed;
  };
  ASSERT_GT(triad_times(1.0), 0);
  std::ofstream(base) << j.dump();
  triad_times(1.2);
  std::ofstream(slow) << j.dump();
  j["devices"][0]["name"] = "NVIDIA H200";
  std::ofstream(other) << j.dump();

  const CliRun same = bench_cli("compare " + base + " " + base + " --fail-on-regression");
  EXPECT_EQ(same.code, 0) << same.out;
  EXPECT_NE(same.out.find("0 worse"), std::string::npos) << same.out;

  const std::string json = dir.file("cmp.json");
  const CliRun worse = bench_cli("compare " + base + " " + slow + " --threshold 5% --fail-on-regression --json " + json);
  EXPECT_EQ(worse.code, 1) << worse.out;
  EXPECT_NE(worse.out.find("regressed beyond the noise"), std::string::npos) << worse.out;
  const auto cmp = read_json(json);
  EXPECT_GE(cmp["worse"].get<int>(), 1);
  EXPECT_EQ(bench_cli("compare " + base + " " + slow + " --threshold 5%").code, 0) << "without --fail-on-regression";

  const CliRun refused = bench_cli("compare " + base + " " + other);
  EXPECT_EQ(refused.code, 2) << refused.out;
  EXPECT_NE(refused.out.find("not comparable"), std::string::npos) << refused.out;
  EXPECT_EQ(bench_cli("compare " + base + " " + other + " --force").code, 0);

  const CliRun bad = bench_cli("compare " + base + " " + dir.file("missing.json"));
  EXPECT_EQ(bad.code, 2) << bad.out;
  std::ofstream(dir.file("load.json")) << R"({"run_info": {"tool": "dcukit load"}, "levels": []})";
  const CliRun notbench = bench_cli("compare " + base + " " + dir.file("load.json"));
  EXPECT_EQ(notbench.code, 2) << notbench.out;
  EXPECT_NE(notbench.out.find("load.json"), std::string::npos) << notbench.out;
}

namespace {

TEST(CliFleetMpi, FourRanksWriteTheirOwnFilesAndReportNamesThePlantedOutlierAndItsCause) {
  // A fleet on one machine: four ranks of mpirun, each a node of the fleet. bench merges every
  // rank's device into rank 0's file; stress writes one file a rank through {host} and {rank}.
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: install openmpi-bin (scripts/setup.sh --tests does)";
  testutil::TempDir dir("cli_fleet");
  const std::string fleet = dir.file("fleet");
  std::filesystem::create_directories(fleet);
  const CliRun b = shell(mpirun(4) + "bench -q --backend cpu --only memory --memory-sizes 1MiB --json '" + fleet +
                         "/bench-{host}.json' 2>&1");
  ASSERT_EQ(b.code, 0) << b.out;
  const CliRun s = shell(mpirun(4) + "stress -q --level 1 --backend cpu --json '" + fleet +
                         "/stress-{host}-{rank}.json' 2>&1");
  ASSERT_EQ(s.code, 0) << s.out;
  std::vector<std::string> stress_files, bench_files;
  for (const auto& e : std::filesystem::directory_iterator(fleet))
    (e.path().filename().string().rfind("stress-", 0) == 0 ? stress_files : bench_files).push_back(e.path().string());
  ASSERT_EQ(stress_files.size(), 4U) << "one stress file a rank";
  ASSERT_EQ(bench_files.size(), 1U) << "bench's ranks merged at rank 0";
  std::set<int> ranks;
  for (const auto& f : stress_files) {
    const auto j = read_json(f);
    ASSERT_TRUE(j["run_info"].contains("launch")) << f;
    EXPECT_EQ(j["run_info"]["launch"]["size"], 4);
    ranks.insert(j["run_info"]["launch"]["rank"].get<int>());
    EXPECT_NE(f.find("-" + std::to_string(j["run_info"]["launch"]["rank"].get<int>()) + ".json"), std::string::npos) << f;
  }
  EXPECT_EQ(ranks, (std::set<int>{0, 1, 2, 3}));
  // The planted outlier: every rank measures rank 0's figures (a CPU's own spread is not the
  // point), with its clock at 1700 MHz; rank 3 measures half, its clock at 1200 MHz.
  auto j = read_json(bench_files[0]);
  ASSERT_EQ(j["devices"].size(), 4U) << j.dump().substr(0, 2000);
  const auto first = j["devices"][0]["results"];
  for (auto& d : j["devices"]) {
    const bool slow = d["rank"] == 3;
    d["results"] = first;
    d["clock_mhz"] = slow ? 1200 : 1700;
    if (slow)
      for (auto& m : d["results"]) m["rate"] = m["rate"].get<double>() * 0.5;
  }
  std::ofstream(bench_files[0]) << j.dump(2);
  const std::string merged = dir.file("merged.json");
  const CliRun r = shell(std::string("timeout 120 ") + DCUKIT_BINARY + " report " + fleet + " -o " +
                         dir.file("fleet.html") + " --json " + merged + " 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto m = read_json(merged);
  ASSERT_EQ(m["fleet"].size(), 1U) << m["fleet"].dump(2);
  const auto& t = m["fleet"][0];
  ASSERT_EQ(t["rows"].size(), 4U) << t.dump(2);
  int low_rows = 0;
  for (const auto& row : t["rows"]) {
    const std::string node = row[0];
    EXPECT_NE(node.find(" rank "), std::string::npos) << "four ranks of one host are four nodes: " << node;
    const std::string text = row.dump();
    EXPECT_NE(text.find("level 1: "), std::string::npos) << "the node's stress verdict: " << text;
    if (text.find("LOW") == std::string::npos) continue;
    ++low_rows;
    EXPECT_NE(node.find("rank 3"), std::string::npos) << text;
    EXPECT_NE(row.back().get<std::string>().find("clock 1200 MHz where 3 of 4 devices have 1700 MHz"), std::string::npos)
        << text;
  }
  EXPECT_EQ(low_rows, 1) << t.dump(2);
}

}  // namespace
