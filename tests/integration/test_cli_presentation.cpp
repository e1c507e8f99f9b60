// How every command speaks (docs/cli.md), on the real binary: --help within 80 columns; -q, -v,
// --wide and --progress on every command; reports fitted to COLUMNS, whole with --wide or in a
// pipe; progress as plain lines off a terminal, doctor's included; --markdown [FILE] as --json.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dcukit_run.h"
#include "tempdir.h"

namespace {

using testutil::run_dcukit;
using testutil::run_dcukit_env;

std::size_t widest_line(const std::string& text, std::string* widest = nullptr) {
  std::istringstream in(text);
  std::size_t most = 0;
  for (std::string line; std::getline(in, line);) {
    std::size_t n = 0;
    for (unsigned char c : line) n += (c & 0xC0) != 0x80;
    if (n > most && widest) *widest = line;
    most = std::max(most, n);
  }
  return most;
}

const std::vector<std::vector<std::string>> kCommands = {
    {"bench"},          {"plan"},   {"load"},   {"load", "compare"}, {"port", "audit"}, {"port", "translate"},
    {"telemetry"},      {"guard"},  {"doctor"}, {"exporter"},        {"patrol"},
};

}  // namespace

TEST(CliPresentation, EveryHelpFitsEightyColumns) {
  std::vector<std::vector<std::string>> all = kCommands;
  all.push_back({});
  all.push_back({"port"});
  for (auto args : all) {
    args.push_back("--help");
    const auto r = run_dcukit_env({"-u", "COLUMNS"}, args);
    std::string widest;
    EXPECT_EQ(r.code, 0) << args.front();
    EXPECT_LE(widest_line(r.out, &widest), 80u) << (args.size() > 1 ? args[0] : "dcukit") << ":\n" << widest;
    EXPECT_NE(r.out.find("Usage: dcukit"), std::string::npos) << r.out.substr(0, 200);
  }
  // A narrower terminal narrows it further.
  const auto narrow = run_dcukit_env({"COLUMNS=60"}, {"patrol", "--help"});
  EXPECT_LE(widest_line(narrow.out), 60u);
  EXPECT_NE(narrow.out.find("Nagios range"), std::string::npos) << "wrapped, not cut";
}

TEST(CliPresentation, EveryCommandTakesTheSameFourFlags) {
  for (auto args : kCommands) {
    args.push_back("--help");
    const auto r = run_dcukit(args);
    for (const char* flag : {"-q,--quiet", "-v,--verbose", "--wide", "--progress"})
      EXPECT_NE(r.out.find(flag), std::string::npos) << args.front() << " has no " << flag;
  }
  const auto bad = run_dcukit({"plan", "--progress", "bar", "--help"});
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.err.find("--progress"), std::string::npos) << bad.err;
}

TEST(CliPresentation, ReportsFitColumnsAndWideKeepsThemWhole) {
  const std::string fixtures = DCUKIT_FIXTURES;
  testutil::TempDir d("cli_presentation_fit");
  const std::string cu = d.write("k.cu", "__global__ void k(float* x) { x[threadIdx.x & 31] = __shfl_sync(0xffffffff, "
                                         "x[0], 0); asm volatile(\"membar.gl;\"); }\n");
  const std::vector<std::vector<std::string>> reports = {
      {"plan", "--model", fixtures + "/models/llama-3.1-8b-instruct", "--gpu", "H200"},
      {"telemetry", "--from", fixtures + "/telemetry/h200/csv.txt"},
      {"doctor", "--quick", "--no-python", "--root", fixtures + "/doctor/dcu-k100ai"},
      {"port", "audit", cu},
  };
  for (const auto& args : reports) {
    const auto fitted = run_dcukit_env({"COLUMNS=80"}, args);
    std::string widest;
    EXPECT_LE(widest_line(fitted.out, &widest), 80u) << args.front() << ":\n" << widest;
    EXPECT_FALSE(fitted.out.empty()) << args.front() << fitted.err;
  }
  // plan's tables run wider than 80: a pipe without COLUMNS, and --wide, keep every cell whole.
  const auto& plan = reports.front();
  const auto piped = run_dcukit_env({"-u", "COLUMNS"}, plan);
  EXPECT_GT(widest_line(piped.out), 80u);
  auto wide_args = plan;
  wide_args.push_back("--wide");
  const auto wide = run_dcukit_env({"COLUMNS=80"}, wide_args);
  EXPECT_EQ(wide.out, piped.out) << "--wide: as if no width were known";
  const auto fitted = run_dcukit_env({"COLUMNS=80"}, plan);
  EXPECT_NE(fitted.out.find("left out to fit 80 columns"), std::string::npos) << fitted.out;
  EXPECT_NE(fitted.out.find("concurrency"), std::string::npos) << "the totals stay, the terms go first";
}

TEST(CliPresentation, QuietLeavesTheResultsAndVerboseAddsSteps) {
  const std::string fixtures = DCUKIT_FIXTURES;
  const std::vector<std::string> plan{"plan", "--model", fixtures + "/models/llama-3.1-8b-instruct", "--gpu", "H200"};
  auto verbose = plan;
  verbose.push_back("-v");
  const auto v = run_dcukit(verbose);
  EXPECT_NE(v.err.find("dcukit plan: 8 option(s) weighed"), std::string::npos) << v.err;
  auto quiet = plan;
  quiet.push_back("-q");
  const auto q = run_dcukit(quiet);
  EXPECT_EQ(q.err, "");
  EXPECT_EQ(q.out, run_dcukit(plan).out) << "-q changes stderr only";
  // telemetry: -q drops its warnings, -v says what each source found.
  const std::string mig = fixtures + "/telemetry/h200/csv.txt";
  const auto tv = run_dcukit({"telemetry", "--from", mig, "-v"});
  EXPECT_NE(tv.err.find("dcukit telemetry: source "), std::string::npos) << tv.err;
}

TEST(CliPresentation, DoctorSaysHowLongItsPythonProbeRunsInAPlainLog) {
  testutil::TempDir d("cli_presentation_doctor");
  const std::string slow = d.write("python3", "#!/bin/sh\nsleep 3\necho not-json\n");
  ::chmod(slow.c_str(), 0755);
  const std::vector<std::string> args{"doctor", "--root", std::string(DCUKIT_FIXTURES) + "/doctor/dcu-k100ai",
                                      "--no-smoke", "--python", slow, "--python-timeout", "20"};
  const auto r = run_dcukit(args);  // stderr is a pipe: auto is plain lines
  EXPECT_NE(r.err.find("Python probe (" + slow + "): 2 s (at most 20 s)\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Python probe (" + slow + "): done in"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "no redraws in a log";
  auto quiet = args;
  quiet.push_back("-q");
  EXPECT_EQ(run_dcukit(quiet).err.find("Python probe"), std::string::npos);
  auto none = args;
  none.insert(none.end(), {"--progress", "none"});
  EXPECT_EQ(run_dcukit(none).err.find("Python probe"), std::string::npos);
}

TEST(CliPresentation, MarkdownFollowsTheJsonGrammar) {
  testutil::TempDir d("cli_presentation_md");
  const std::vector<std::string> plan{"plan", "--model", std::string(DCUKIT_FIXTURES) + "/models/llama-3.1-8b-instruct",
                                      "--gpu", "H200"};
  auto bare = plan;
  bare.push_back("--markdown");
  const auto md = run_dcukit(bare);
  EXPECT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("| option |"), std::string::npos) << md.out.substr(0, 400);
  EXPECT_EQ(md.out.find("------  --------"), std::string::npos) << "in place of the text";
  auto file = plan;
  file.insert(file.end(), {"--markdown", d.file("plan.md")});
  const auto f = run_dcukit(file);
  EXPECT_EQ(f.code, 0) << f.err;
  EXPECT_NE(f.out.find("Options at --max-model-len"), std::string::npos) << "the text stays on stdout";
  std::ifstream in(d.file("plan.md"));
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(written.find("| option |"), std::string::npos) << written.substr(0, 200);
  auto both = plan;
  both.insert(both.end(), {"--markdown", "--json"});
  const auto b = run_dcukit(both);
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("both write to stdout"), std::string::npos) << b.err;
}
