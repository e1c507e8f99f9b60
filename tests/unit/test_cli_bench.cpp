// `dcukit bench` as a user runs it: the real binary, on this GPU-less host.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

struct CliRun {
  int code = -1;
  std::string out;  // stdout and stderr together
};

CliRun dcukit(const std::string& args) {
  CliRun r;
  const std::string cmd = std::string("timeout 120 ") + DCUKIT_BINARY + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + "dcukit_" + name; }

const std::string kSmall = "bench -q --backend cpu --sizes 64 --precisions fp32 --memory-sizes 1MiB --transfer-sizes 1MiB --iterations 2";

} // namespace

TEST(CliBench, ListBackendsExplainsWhatIsMissing) {
  const CliRun r = dcukit("bench --list-backends");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("cpu   loaded"), std::string::npos) << r.out;
  // No GPU here: each GPU backend is listed with the loader's or the runtime's own message.
  for (const char* b : {"cuda", "hip"}) {
    const auto at = r.out.find(b);
    ASSERT_NE(at, std::string::npos) << r.out;
  }
}

TEST(CliBench, RunsOnTheCpuAndSaysSoAndWritesJsonAndMarkdown) {
  const std::string json = temp_path("bench.json"), md = temp_path("bench.md");
  const CliRun r = dcukit(kSmall + " --json " + json + " --markdown " + md);
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
  };
  for (const auto& c : cases) {
    const CliRun r = dcukit(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << c.args << "\n" << r.out;
  }
}

TEST(CliBench, ASizeThatDoesNotFitFailsThatCaseKeepsTheRestAndExitsOne) {
  const std::string json = temp_path("partial.json");
  const CliRun r = dcukit("bench -q --backend cpu --only memory,latency --memory-sizes 1024GiB --iterations 2 --json " + json);
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
  const CliRun r = dcukit("bench -q --backend cpu --only gemm --sizes 64 --precisions fp64 --iterations 2 --peak fp64=1e9");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("%"), std::string::npos) << r.out;
}

TEST(CliBench, VersionAndHelp) {
  EXPECT_NE(dcukit("--version").out.find("dcukit 0."), std::string::npos);
  const CliRun h = dcukit("help bench");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("--list-backends"), std::string::npos);
}
