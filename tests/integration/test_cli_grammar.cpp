// One output grammar across the commands (docs/cli.md), on the real binary: `--json` alone or
// `--json -` prints the JSON on stdout in place of the text; `--json FILE` writes the file and
// prints the text; every JSON report starts with run_info, then schema_version; a word after a
// bare --json that is not a .json name stays the command's (a source file is never overwritten).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dcukit_run.h"
#include "tempdir.h"

namespace {

using testutil::run_dcukit;

struct Command {
  const char* name;
  std::vector<std::string> args;  ///< everything but the --json
  bool text_on_stdout = true;      ///< without --json on stdout, prints a text report
};

std::vector<Command> commands(const testutil::TempDir& d) {
  const std::string fixtures = DCUKIT_FIXTURES;
  const std::string cu = d.write("k.cu", "__global__ void k(float* x) { x[threadIdx.x & 31] = 0; }\n");
  return {
      {"doctor", {"doctor", "--quick", "--no-python", "--root", fixtures + "/doctor/dcu-k100ai"}},
      {"plan", {"plan", "--model", fixtures + "/models/qwen2-7b-instruct", "--gpu", "H100"}},
      {"port", {"port", "audit", cu}},
      {"telemetry", {"telemetry", "--from", fixtures + "/telemetry/h200/csv.txt"}},
      {"patrol", {"patrol", "--from", fixtures + "/telemetry/h200/csv.txt"}},
      {"bench", {"bench", "-q", "--backend", "cpu", "--only", "gemm", "--sizes", "256", "--precisions", "fp32"}},
  };
}

void expect_report(const std::string& text, const std::string& what) {
  const auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  ASSERT_TRUE(j.is_object()) << what << ":\n" << text.substr(0, 400);
  auto key = j.begin();
  EXPECT_EQ(key.key(), "run_info") << what;
  EXPECT_EQ((++key).key(), "schema_version") << what;
  EXPECT_TRUE(j["schema_version"].is_number_integer()) << what;
}

TEST(CliGrammar, JsonAloneOrDashIsStdoutAndJsonFileIsAFile) {
  testutil::TempDir d("cli_grammar");
  for (const auto& c : commands(d)) {
    SCOPED_TRACE(c.name);
    for (const char* form : {"alone", "-"}) {
      auto args = c.args;
      args.push_back("--json");
      if (std::string(form) == "-") args.push_back("-");
      const auto r = run_dcukit(args, std::chrono::seconds(120));
      ASSERT_GE(r.code, 0);
      EXPECT_LE(r.code, 1) << r.err;  // a finding or a warning may be exit 1; bad input is 2
      expect_report(r.out, std::string(c.name) + " --json " + form);
    }
    const std::string file = d.file(std::string(c.name) + ".json");
    auto args = c.args;
    args.insert(args.end(), {"--json", file});
    const auto r = run_dcukit(args, std::chrono::seconds(120));
    EXPECT_LE(r.code, 1) << r.err;
    expect_report(d.read(std::string(c.name) + ".json"), std::string(c.name) + " --json FILE");
    if (c.text_on_stdout) {
      EXPECT_FALSE(r.out.empty()) << "the text report still goes to stdout";
      EXPECT_TRUE(nlohmann::json::parse(r.out, nullptr, false).is_discarded()) << "text, not JSON: " << r.out;
    }
  }
}

TEST(CliGrammar, AWordAfterABareJsonIsTheCommandsNotItsFile) {
  testutil::TempDir d("cli_grammar_word");
  const std::string source = "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n";
  const std::string cu = d.write("k.cu", source);
  const auto r = run_dcukit({"port", "audit", "--json", cu});
  EXPECT_LE(r.code, 1) << r.err;
  expect_report(r.out, "port audit --json k.cu");
  EXPECT_EQ(d.read("k.cu"), source) << "the source was taken as the JSON's file";
  // Where the command takes no such word, the error says what a FILE looks like.
  const auto bad = run_dcukit({"telemetry", "--from", std::string(DCUKIT_FIXTURES) + "/telemetry/h200/csv.txt",
                               "--json", d.file("out.txt")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("a FILE after --json ends in .json"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("--json=" + d.file("out.txt")), std::string::npos) << bad.err;
}

TEST(CliGrammar, CsvFollowsTheSameGrammar) {
  testutil::TempDir d("cli_grammar_csv");
  const std::string capture = std::string(DCUKIT_FIXTURES) + "/telemetry/h200/csv.txt";
  const auto out = run_dcukit({"telemetry", "--from", capture, "--csv"});
  EXPECT_EQ(out.code, 0) << out.err;
  EXPECT_EQ(out.out.rfind("timestamp,", 0), 0u) << out.out;
  const auto file = run_dcukit({"telemetry", "--from", capture, "--csv", d.file("t.csv"), "--json", d.file("t.json")});
  EXPECT_EQ(file.code, 0) << file.err;
  EXPECT_EQ(d.read("t.csv").rfind("timestamp,", 0), 0u);
  expect_report(d.read("t.json"), "telemetry --json FILE beside --csv FILE");
  EXPECT_NE(file.out.find("NVIDIA H200"), std::string::npos) << "the table, on stdout";
  const auto both = run_dcukit({"telemetry", "--from", capture, "--csv", "--json"});
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("both write to stdout"), std::string::npos) << both.err;
}

TEST(CliGrammar, DiagnosticsGoToStderr) {
  // A plan that writes its script says so on stderr; bench's notes are on stderr.
  testutil::TempDir d("cli_grammar_diag");
  const auto plan = run_dcukit({"plan", "--model", std::string(DCUKIT_FIXTURES) + "/models/qwen2-7b-instruct", "--gpu",
                                "H100", "--emit", "vllm", "-o", d.file("serve.sh")});
  EXPECT_EQ(plan.code, 0) << plan.err;
  EXPECT_EQ(plan.out.find("wrote "), std::string::npos) << plan.out;
  EXPECT_NE(plan.err.find("wrote " + d.file("serve.sh")), std::string::npos) << plan.err;
  const auto bench = run_dcukit({"bench", "--backend", "cpu", "--only", "gemm", "--sizes", "256", "--precisions",
                                 "fp32", "--json", d.file("b.json")},
                                std::chrono::seconds(120));
  EXPECT_EQ(bench.out.find("note:"), std::string::npos) << bench.out;
  EXPECT_NE(bench.err.find("note:"), std::string::npos) << bench.err;
  EXPECT_NE(bench.err.find("wrote " + d.file("b.json")), std::string::npos) << bench.err;
  // -q: the results and the errors only; the report and the file are unchanged.
  const auto quiet = run_dcukit({"bench", "-q", "--backend", "cpu", "--only", "gemm", "--sizes", "256", "--precisions",
                                 "fp32", "--json", d.file("q.json")},
                                std::chrono::seconds(120));
  EXPECT_EQ(quiet.code, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "") << "-q leaves no notes, progress or 'wrote'";
  EXPECT_NE(quiet.out.find("FLOPS"), std::string::npos) << quiet.out;
  EXPECT_TRUE(std::ifstream(d.file("q.json")).good());
  EXPECT_NE(bench.out.find("FLOPS"), std::string::npos) << bench.out;
  EXPECT_EQ(bench.out.find("TFLOPS"), std::string::npos) << "a CPU's GEMM is not 0.0 TFLOPS:\n" << bench.out;
}

}  // namespace

TEST(CliGrammar, EveryTimeFlagReadsSecondsAndUnits) {
  // "5", "5s", "500ms", "2m" wherever a flag takes a time; a word that is none is bad input.
  const std::string fixtures = DCUKIT_FIXTURES;
  const std::string capture = fixtures + "/telemetry/h200/csv.txt";
  for (const char* t : {"5", "5s", "500ms", "1m"})
    EXPECT_EQ(run_dcukit({"telemetry", "--from", capture, "--timeout", t}).code, 0) << t;
  const auto bad = run_dcukit({"telemetry", "--from", capture, "--timeout", "5x"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("'5x' is not a duration"), std::string::npos) << bad.err;
  const auto out_of_range =
      run_dcukit({"doctor", "--quick", "--no-python", "--root", fixtures + "/doctor/dcu-k100ai", "--python-timeout", "2h"});
  EXPECT_EQ(out_of_range.code, 2);
  EXPECT_NE(out_of_range.err.find("2h is outside 1s to 1h"), std::string::npos) << out_of_range.err;
  // The string-typed ones (patrol, exporter, guard) take a bare number of seconds too.
  EXPECT_EQ(run_dcukit({"patrol", "--from", capture, "--timeout", "3"}).code, 0);
  EXPECT_EQ(run_dcukit({"patrol", "--from", capture, "--timeout", "3s"}).code, 0);
}

TEST(CliGrammar, TheDeviceSourceFlagsAreOneSetInEveryCommandThatReadsDevices) {
  const std::string capture = std::string(DCUKIT_FIXTURES) + "/telemetry/h200/csv.txt";
  for (const char* command : {"telemetry", "exporter", "patrol"}) {
    const auto help = run_dcukit({command, "--help"});
    for (const char* flag : {"--from", "--source TEXT:SOURCE=auto", "--root TEXT:DIR", "--timeout FLOAT:DURATION in [1ms, 1h]"})
      EXPECT_NE(help.out.find(flag), std::string::npos) << command << " lacks " << flag;
    const auto both = run_dcukit({command, "--from", capture, "--source", "sysfs"});
    EXPECT_NE(both.err.find("--source sysfs is for the live host"), std::string::npos) << command << ": " << both.err;
    EXPECT_EQ(both.code, std::string(command) == "patrol" ? 3 : 2) << command;
    const auto unknown = run_dcukit({command, "--source", "rsmi"});
    EXPECT_NE(unknown.err.find("rsmi: choose auto, nvml, rocm-smi-lib, sysfs or cli"), std::string::npos)
        << command << ": " << unknown.err;
  }
}
