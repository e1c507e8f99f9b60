// dcukit load's features end to end: datasets, load shapes, sweeps, warm-up, --wait-ready,
// the API key, /metrics, CSV and compare, against the fake server on loopback.
#include <algorithm>
#include <fstream>

#include "fixture.h"

namespace {

using itest::FakeServer;
using itest::run_dcukit;

class LoadCli : public itest::ServerSuite<LoadCli> {
public:
  static constexpr const char* kName = "cli";
  static std::vector<std::string> flags() { return {"--ttft-ms", "10", "--itl-ms", "2"}; }

protected:
  static std::vector<std::string> base(int n = 6) {
    return {"load",        "--url", s_server->url(), "-n", std::to_string(n),
            "--input-len", "8",     "--output-len",  "4",  "--timeout",
            "2",           "-q"};
  }
  static std::string temp(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(LoadCli, MixedMisbehaviourPerPromptLandsInEachClass) {
  const std::string path = temp("mixed.jsonl",
                                "{\"prompt\": \"hello there\", \"output_len\": 6}\n"
                                "{\"prompt\": \"hello fake-mode=drop\", \"output_len\": 6}\n"
                                "{\"prompt\": \"hello fake-mode=hang\", \"output_len\": 6}\n"
                                "{\"prompt\": \"hello fake-mode=status=500\", \"output_len\": 6}\n"
                                "{\"prompt\": \"hello fake-mode=error\", \"output_len\": 6}\n"
                                "{\"prompt\": \"hello fake-mode=split,crlf\", \"output_len\": 6}\n");
  auto r = run_dcukit({"load", "--url", s_server->url(), "--dataset", "jsonl", "--dataset-path", path, "-n", "6", "-c",
                       "6", "--timeout", "0.5", "-q"},
                      "mixed", std::chrono::seconds(20));
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 0);
  EXPECT_EQ(r.json["completed"], 2);
  EXPECT_EQ(r.json["errors_dropped"], 1);
  EXPECT_EQ(r.json["errors_timeout"], 1);
  EXPECT_EQ(r.json["errors_http_status"], 1);
  EXPECT_EQ(r.json["errors_stream_error"], 1);
  EXPECT_EQ(r.json["http_status_counts"]["500"], 1);
  EXPECT_EQ(r.json["total_output_tokens"], 12);
}

TEST_F(LoadCli, OpenLoopAtARateKeepsTheSchedule) {
  auto args = base(20);
  args.insert(args.end(), {"--request-rate", "100", "--burstiness", "1", "--seed", "7"});
  auto r = run_dcukit(args, "open");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 20);
  EXPECT_EQ(r.json["request_rate"], 100.0);
  EXPECT_EQ(r.json["load_shape"], "open");
  EXPECT_LT(r.json["p99_send_lag_ms"].get<double>(), 25.0);  // kept on a loaded 2-core CI machine too
}

TEST_F(LoadCli, SweepWritesOneRunALevelAndCsv) {
  auto args = base(4);
  const std::string csv = ::testing::TempDir() + "sweep.csv";
  args.insert(args.end(), {"-c", "1,2", "--csv", csv});
  auto r = run_dcukit(args, "sweep");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  ASSERT_EQ(r.json["runs"].size(), 2u);
  EXPECT_EQ(r.json["runs"][1]["max_concurrency"], 2);
  const std::string text = itest::slurp(csv);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_NE(text.find("median_ttft_ms"), std::string::npos);
}

TEST_F(LoadCli, WarmupIsLeftOutAndDurationBounds) {
  auto args = base(5);
  args.insert(args.end(), {"--warmup", "3"});
  auto r = run_dcukit(args, "warmup");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["num_prompts"], 5);
  auto d = run_dcukit(
      {"load", "--url", s_server->url(), "--duration", "0.5", "-c", "2", "--input-len", "4", "--output-len", "4", "-q"},
      "duration");
  ASSERT_TRUE(d.json.is_object()) << d.exit.err;
  EXPECT_GT(d.json["completed"].get<int>(), 5);
  EXPECT_LT(d.json["duration"].get<double>(), 1.5);
}

TEST_F(LoadCli, TextPromptsAreCalibratedThroughTokenize) {
  auto args = base(3);
  args.insert(args.end(), {"--prompt", "text", "--input-len", "37", "--prefix-len", "10"});
  auto r = run_dcukit(args, "text");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({37, 37, 37}));
}

TEST_F(LoadCli, ShareGptFirstTurn) {
  const std::string path =
      temp("sg.json",
           R"([{"conversations":[{"from":"human","value":"one two three"},{"from":"gpt","value":"a b c d e"}]},
                                    {"conversations":[{"from":"human","value":"four five"},{"from":"gpt","value":"f g"}]},
                                    {"conversations":[{"from":"human","value":"lonely"}]}])");
  auto r = run_dcukit({"load", "--url", s_server->url(), "--dataset", "sharegpt", "--dataset-path", path,
                       "--output-len", "0", "-n", "2", "-q"},
                      "sharegpt");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 2);
  EXPECT_EQ(r.json["total_input_tokens"], 5);
  EXPECT_EQ(r.json["total_output_tokens"], 7);
}

TEST_F(LoadCli, MetricsUrlReportsServerCounters) {
  auto args = base(5);
  args.insert(args.end(), {"--metrics-url", s_server->url() + "/metrics"});
  auto r = run_dcukit(args, "metrics");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["server_generation_tokens"], 20.0);
  EXPECT_EQ(r.json["server_prompt_tokens"], 40.0);
  EXPECT_GE(r.json["server_kv_cache_usage_peak"].get<double>(), 0.0);
}

TEST_F(LoadCli, GoodputUnderSlo) {
  auto args = base(4);
  args.insert(args.end(), {"--slo", "ttft=1000,tpot=100"});
  auto r = run_dcukit(args, "slo");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_NEAR(r.json["request_goodput"].get<double>(), r.json["request_throughput"].get<double>(), 1e-9);
  args = base(4);
  args.insert(args.end(), {"--slo", "ttft=1"});
  auto strict = run_dcukit(args, "slo_strict");
  EXPECT_EQ(strict.json["request_goodput"], 0.0);
}

TEST_F(LoadCli, CompareShowsTheChange) {
  auto a = run_dcukit(base(3), "cmp_a");
  auto b = run_dcukit(base(3), "cmp_b");
  ASSERT_TRUE(a.json.is_object() && b.json.is_object());
  const std::string pa = ::testing::TempDir() + "dcukit_cmp_a.json", pb = ::testing::TempDir() + "dcukit_cmp_b.json";
  auto c = run_dcukit({"load", "compare", pa, pb}, "cmp");
  EXPECT_EQ(c.exit.code, 0) << c.exit.err;
  EXPECT_NE(c.exit.out.find("median_ttft_ms"), std::string::npos);
  EXPECT_NE(c.exit.out.find('%'), std::string::npos);
}

TEST_F(LoadCli, ApiKeyComesFromTheEnvironment) {
  FakeServer secured({"--ttft-ms", "5", "--itl-ms", "1", "--api-key", "s3cret"}, "secured");
  std::vector<std::string> args{
      "load", "--url",         secured.url(),    "-n", "2", "--input-len", "4", "--output-len", "2",
      "-q",   "--api-key-env", "DCUKIT_TEST_KEY"};
  auto ok = run_dcukit(args, "key_ok", std::chrono::seconds(20), {"DCUKIT_TEST_KEY=s3cret"});
  ASSERT_TRUE(ok.json.is_object()) << ok.exit.err;
  EXPECT_EQ(ok.json["completed"], 2);
  auto denied = run_dcukit(args, "key_missing", std::chrono::seconds(20));
  ASSERT_TRUE(denied.json.is_object()) << denied.exit.err;
  EXPECT_EQ(denied.json["http_status_counts"]["401"], 2);
}

TEST_F(LoadCli, WaitReadyPollsHealthThenModels) {
  FakeServer slow({"--ready-after-ms", "600"}, "slow");
  auto ok = run_dcukit(
      {"load", "--url", slow.url(), "--wait-ready", "10", "-n", "2", "--input-len", "4", "--output-len", "2", "-q"},
      "ready_ok", std::chrono::seconds(20));
  ASSERT_TRUE(ok.json.is_object()) << ok.exit.err;
  EXPECT_EQ(ok.json["completed"], 2);
  FakeServer slower({"--ready-after-ms", "60000"}, "slower");
  auto late = run_dcukit({"load", "--url", slower.url(), "--wait-ready", "0.5", "-n", "2", "-q"}, "ready_late",
                         std::chrono::seconds(20));
  EXPECT_EQ(late.exit.code, 1);
  EXPECT_NE(late.exit.err.find("not ready"), std::string::npos) << late.exit.err;
}

TEST_F(LoadCli, BadInputIsRejectedBeforeSending) {
  auto r = run_dcukit({"load", "--url", s_server->url(), "--slo", "ttft=abc"}, "bad_slo", std::chrono::seconds(10));
  EXPECT_EQ(r.exit.code, 2);
  EXPECT_NE(r.exit.err.find("--slo"), std::string::npos);
  auto r2 = run_dcukit({"load", "--url", s_server->url(), "-c", "0"}, "bad_conc", std::chrono::seconds(10));
  EXPECT_EQ(r2.exit.code, 2);
  auto r3 = run_dcukit({"load", "--url", s_server->url(), "--threads", "-1"}, "bad_threads", std::chrono::seconds(10));
  EXPECT_EQ(r3.exit.code, 2);
  EXPECT_NE(r3.exit.err.find("--threads"), std::string::npos) << r3.exit.err;
}

}  // namespace
