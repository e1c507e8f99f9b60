// `dcukit plan` through its CLI: flags reach the engine, and the exit codes say what happened.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/plan.h"

using dcukit::cli::ExitCode;

namespace {
struct Run {
  ExitCode code = ExitCode::ok;
  std::string out;
};

Run run(std::vector<std::string> args) {
  args.insert(args.begin(), {"dcukit", "plan", "--model"});
  args.insert(args.begin() + 3, std::string(DCUKIT_FIXTURES) + "/models/qwen3-32b");
  CLI::App app;
  dcukit::cli::Runner runner;
  dcukit::cli::setup_plan(app, runner);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  testing::internal::CaptureStdout();
  Run r;
  r.code = runner();
  std::fflush(stdout);
  r.out = testing::internal::GetCapturedStdout();
  return r;
}
} // namespace

TEST(PlanCli, RecommendsAndPrintsTheTables) {
  auto r = run({"--gpu", "BW1000", "--count", "4", "--max-model-len", "32768"});
  EXPECT_EQ(r.code, ExitCode::ok);
  EXPECT_NE(r.out.find("* recommended: the fewest cards (TP 4)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--enforce-eager"), std::string::npos);
}

TEST(PlanCli, FlagsReachTheEngine) {
  auto r = run({"--gpu", "BW1000", "--count", "2", "--max-model-len", "16384", "--gpu-memory-utilization", "0.88",
                "--max-num-seqs", "64", "--max-num-batched-tokens", "4096", "--block-size", "32", "--no-enforce-eager",
                "--min-concurrency", "2", "--json"});
  EXPECT_EQ(r.code, ExitCode::ok);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["settings"]["gpu_memory_utilization"].get<double>(), 0.88);
  EXPECT_EQ(j["settings"]["max_model_len"].get<int>(), 16384);
  EXPECT_EQ(j["settings"]["max_num_seqs"].get<int>(), 64);
  EXPECT_EQ(j["settings"]["max_num_batched_tokens"].get<int>(), 4096);
  EXPECT_EQ(j["settings"]["block_size"].get<int>(), 32);
  EXPECT_FALSE(j["settings"]["enforce_eager"].get<bool>());
  EXPECT_EQ(j["cards"]["count"].get<int>(), 2);
}

TEST(PlanCli, GpuMemoryOverridesThePeakData) {
  // Seed 004 calls its K100 a 96 GB card; the peak data says 64 GB. The user decides.
  auto r = run({"--gpu", "K100", "--count", "1", "--gpu-memory", "96GiB", "--max-model-len", "8192", "--json"});
  EXPECT_EQ(r.code, ExitCode::ok);  // 61 GiB of Qwen3-32B fit one such card; on the peak data's 64 GB they would not
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cards"]["total_bytes"].get<std::uint64_t>(), 96ull << 30);
  EXPECT_EQ(j["cards"]["total_source"].get<std::string>(), "--gpu-memory 96GiB");
  EXPECT_EQ(run({"--gpu", "K100", "--gpu-memory", "lots"}).code, ExitCode::bad_input);
}

TEST(PlanCli, ExitCodes) {
  EXPECT_EQ(run({"--gpu", "BW2000"}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--gpu", "BW1000", "--kv-cache-dtype", "fp8"}).code, ExitCode::bad_input);
  EXPECT_EQ(run({"--gpu", "BW1000", "--emit", "sglang"}).code, ExitCode::bad_input);
  auto none = run({"--gpu", "BW1000", "--count", "1", "--max-model-len", "32768"});
  EXPECT_EQ(none.code, ExitCode::failed);
  EXPECT_NE(none.out.find("Nearest that works: --count 2 (TP 2)"), std::string::npos) << none.out;
}

TEST(PlanCli, EmitWritesAnExecutableScript) {
  const auto path = std::filesystem::temp_directory_path() / "dcukit_plan_test_serve.sh";
  std::filesystem::remove(path);
  auto r = run({"--gpu", "BW1000", "--count", "4", "--max-model-len", "32768", "--emit", "vllm", "-o", path.string(),
                "--toolkit-env", "/opt/dtk-26.04/env.sh", "--port", "9000"});
  EXPECT_EQ(r.code, ExitCode::ok);
  ASSERT_TRUE(std::filesystem::exists(path));
  EXPECT_NE(std::filesystem::status(path).permissions() & std::filesystem::perms::owner_exec,
            std::filesystem::perms::none);
  std::FILE* f = std::fopen(path.string().c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_NE(text.find("--port 9000"), std::string::npos);
  EXPECT_NE(text.find("source '/opt/dtk-26.04/env.sh'"), std::string::npos);
  std::filesystem::remove(path);
}
