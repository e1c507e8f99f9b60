// What every command shares at the top level, through the real binary: a parse error reads
// like every other error ("dcukit <command>: what is wrong") and exits 2; every JSON report
// starts with the same run_info object, whichever command wrote it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "dcukit_run.h"
#include "tempdir.h"
#include "test_telemetry_helpers.h"

namespace {

using testutil::run_dcukit;

/// The keys of a JSON object in the order they were written.
nlohmann::ordered_json parse_ordered(const std::string& text) {
  auto j = nlohmann::ordered_json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text.substr(0, 400);
  return j;
}

}  // namespace

TEST(CliApp, ParseErrorsNameTheCommandAndExitTwo) {
  struct Case {
    std::vector<std::string> args;
    std::string starts, says;
  };
  const std::vector<Case> cases = {
      {{"bench", "--no-such-flag"}, "dcukit bench: ", "--no-such-flag"},
      {{"bench", "--iterations", "many"}, "dcukit bench: ", "--iterations"},
      {{"plan", "--gpu", "BW1000", "--model"}, "dcukit plan: ", "--model"},  // its value is missing
      {{"plan", "--model", ".", "--count", "2.5"}, "dcukit plan: ", "not a whole number"},
      {{"load", "--url", "http://127.0.0.1:1", "-n", "1e3"}, "dcukit load: ", "-n"},
      {{"telemetry", "--timeout", "nan"}, "dcukit telemetry: ", "--timeout"},
      {{"port", "audit", "--bogus"}, "dcukit port audit: ", "--bogus"},
      {{"frobnicate"}, "dcukit: ", "frobnicate"},
  };
  for (const auto& c : cases) {
    const auto r = run_dcukit(c.args);
    const std::string what = c.args[0] + " " + (c.args.size() > 1 ? c.args[1] : "");
    EXPECT_EQ(r.code, 2) << what << "\n" << r.err;
    EXPECT_EQ(r.err.rfind(c.starts, 0), 0u) << what << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << what << "\n" << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << "says where the options are: " << r.err;
  }
  // Help and --version are not errors.
  EXPECT_EQ(run_dcukit({"bench", "--help"}).code, 0);
  EXPECT_EQ(run_dcukit({"--version"}).code, 0);
  const auto help = run_dcukit({"help", "nothing"});
  EXPECT_EQ(help.code, 2);
  EXPECT_NE(help.err.find("telemetry"), std::string::npos) << "lists every command: " << help.err;
}

TEST(CliApp, TelemetryNumbersHaveRanges) {
  for (const auto& extra : std::vector<std::vector<std::string>>{{"--timeout", "nan"},
                                                                 {"--timeout", "1e300"},
                                                                 {"--timeout", "0"},
                                                                 {"--watch", "nan"},
                                                                 {"--watch", "1e300"},
                                                                 {"--watch", "-1"},
                                                                 {"--count", "0"},
                                                                 {"--count", "1.5"}}) {
    std::vector<std::string> args{"telemetry", "--source", "sysfs", "--root",
                                  testutil::telemetry_fixture("sysfs-dcu-host")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_dcukit(args);
    EXPECT_EQ(r.code, 2) << extra[0] << " " << extra[1] << "\n" << r.err;
    EXPECT_NE(r.err.find(extra[0]), std::string::npos) << r.err;
  }
}

TEST(CliApp, EveryJsonReportStartsWithRunInfo) {
  testutil::TempDir dir("cli_app");
  const std::string bad_cu = dir.write("k.cu", "__global__ void k(int* p) { p[threadIdx.x % 32] = 0; }\n");
  const std::vector<std::vector<std::string>> commands = {
      {"telemetry", "--from", testutil::telemetry_fixture("samples/nvidia-smi/q-h100-80gb-load.txt"), "--json"},
      {"telemetry", "--source", "sysfs", "--root", testutil::telemetry_fixture("sysfs-dcu-host"), "--json"},
      {"port", "audit", bad_cu, "--json"},
      {"plan", "--model", std::string(DCUKIT_FIXTURES) + "/models/qwen3-8b", "--gpu", "BW1000", "--json"},
  };
  for (const auto& args : commands) {
    const auto r = run_dcukit(args);
    EXPECT_LE(r.code, 1) << args[0] << "\n" << r.err;
    const auto j = parse_ordered(r.out);
    ASSERT_TRUE(j.is_object()) << args[0] << ": " << r.out.substr(0, 400);
    ASSERT_FALSE(j.empty());
    EXPECT_EQ(j.begin().key(), "run_info") << args[0];
    const auto& info = j["run_info"];
    EXPECT_EQ(info["tool"], "dcukit " + args[0] + (args[0] == "port" ? " audit" : "")) << info.dump();
    EXPECT_NE(info["command"].get<std::string>().find(args[0]), std::string::npos) << info.dump();
    EXPECT_FALSE(info["host"]["hostname"].get<std::string>().empty()) << info.dump();
  }
  // With --watch every JSON line is a report of its own.
  const auto watch =
      run_dcukit({"telemetry", "--source", "sysfs", "--root", testutil::telemetry_fixture("sysfs-dcu-host"), "--json",
                  "--watch", "0.05", "--count", "2"});
  ASSERT_EQ(watch.code, 0) << watch.err;
  const auto first_line = watch.out.substr(0, watch.out.find('\n'));
  EXPECT_EQ(parse_ordered(first_line).begin().key(), "run_info");
}

TEST(CliApp, LateBadInputStillExitsTwo) {
  // Found only after parsing, each once exited 1 like a failed run.
  const std::vector<std::vector<std::string>> cases{
      {"telemetry", "--root", "/no/such/root"},
      {"exporter", "--root", "/no/such/root"},
      {"patrol", "--root", "/no/such/root", "--no-devices", "--url", "http://127.0.0.1:1"},
      {"load", "--url", "http://[::1", "-n", "1"},
      {"load", "--url", "http://127.0.0.1:99999", "-n", "1"},
      {"load", "--url", "http://127.0.0.1:1", "--metrics-url", "http://h:0/metrics", "-n", "1"},
  };
  for (const auto& args : cases) {
    const auto r = run_dcukit(args);
    const std::string what = args[0] + " " + args[1] + " " + args[2];
    const int bad_input = args[0] == "patrol" ? 3 : 2;  // patrol speaks Nagios: UNKNOWN
    EXPECT_EQ(r.code, bad_input) << what << "\n" << r.err;
    EXPECT_TRUE(r.err.find("/no/such/root") != std::string::npos || r.err.find("url") != std::string::npos)
        << what << ": the error names the input\n" << r.err;
  }
}
