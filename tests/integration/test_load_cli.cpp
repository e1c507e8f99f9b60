// dcukit load's features end to end: datasets, load shapes, sweeps, warm-up, --wait-ready,
// the API key, /metrics, CSV and compare, against the fake server on loopback.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

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
  testutil::TempDir m_dir{"load_cli"};
  itest::Run run(const std::vector<std::string>& args, const std::string& name, itest::RunOptions o = {}) {
    return run_dcukit(m_dir, args, name, o);
  }
};

TEST_F(LoadCli, MixedMisbehaviourPerPromptLandsInEachClass) {
  const std::string path = m_dir.write("mixed.jsonl",
                                       "{\"prompt\": \"hello there\", \"output_len\": 6}\n"
                                       "{\"prompt\": \"hello fake-mode=drop\", \"output_len\": 6}\n"
                                       "{\"prompt\": \"hello fake-mode=hang\", \"output_len\": 6}\n"
                                       "{\"prompt\": \"hello fake-mode=status=500\", \"output_len\": 6}\n"
                                       "{\"prompt\": \"hello fake-mode=error\", \"output_len\": 6}\n"
                                       "{\"prompt\": \"hello fake-mode=split,crlf\", \"output_len\": 6}\n");
  auto r = run({"load", "--url", s_server->url(), "--dataset", "jsonl", "--dataset-path", path, "-n", "6", "-c", "6",
                "--timeout", "10", "-q"},  // the hanging one never ends; the rest finish far within, loaded too
               "mixed", {.deadline = std::chrono::seconds(60)});
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 1) << "requests failed: exit 1, with the results written";
  EXPECT_NE(r.exit.err.find("4 of 6 requests failed"), std::string::npos) << r.exit.err;
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
  auto r = run(args, "open");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 20);
  EXPECT_EQ(r.json["request_rate"], 100.0);
  EXPECT_EQ(r.json["load_shape"], "open");
  itest::expect_times_consistent(r.json);
}

TEST_F(LoadCli, SweepWritesOneRunALevelAndCsv) {
  auto args = base(4);
  const std::string csv = m_dir.file("sweep.csv");
  args.insert(args.end(), {"-c", "1,2", "--csv", csv});
  auto r = run(args, "sweep");
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
  auto r = run(args, "warmup");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["num_prompts"], 5);
  auto d = run(
      {"load", "--url", s_server->url(), "--duration", "0.5", "-c", "2", "--input-len", "4", "--output-len", "4", "-q"},
      "duration");
  ASSERT_TRUE(d.json.is_object()) << d.exit.err;
  EXPECT_GT(d.json["completed"].get<int>(), 0);
  itest::expect_issued_within(d.json, 0.5);
}

TEST_F(LoadCli, TextPromptsAreCalibratedThroughTokenize) {
  const std::vector<std::string> args{"load", "--url",    s_server->url(), "-n",          "3",  "--output-len", "4",
                                      "-q",   "--prompt", "text",          "--input-len", "37", "--prefix-len", "10"};
  auto r = run(args, "text");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({37, 37, 37}));
}

TEST_F(LoadCli, ShareGptFirstTurn) {
  // Prompts and answers of at least 4 tokens pass vLLM's filter; the answer's length is max_tokens.
  const std::string path = m_dir.write(
      "sg.json",
      R"([{"conversations":[{"from":"human","value":"one two three four"},{"from":"gpt","value":"a b c d e"}]},
          {"conversations":[{"from":"human","value":"five six seven eight nine"},{"from":"gpt","value":"f g h i j k"}]},
          {"conversations":[{"from":"human","value":"too short"},{"from":"gpt","value":"f g h i j"}]},
          {"conversations":[{"from":"human","value":"lonely"}]}])");
  auto r = run({"load", "--url", s_server->url(), "--dataset", "sharegpt", "--dataset-path", path, "--output-len", "0",
                "-n", "2", "-q"},
               "sharegpt");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 2);
  EXPECT_EQ(r.json["total_input_tokens"], 9);
  EXPECT_EQ(r.json["total_output_tokens"], 11) << "each answer's own length, never 1";
  EXPECT_NE(r.json["notes"].dump().find("1 of 3 conversations read were left out"), std::string::npos)
      << r.json["notes"];
}

TEST_F(LoadCli, MetricsUrlReportsServerCounters) {
  auto args = base(5);
  args.insert(args.end(), {"--metrics-url", s_server->url() + "/metrics"});
  auto r = run(args, "metrics");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["server_generation_tokens"], 20.0);
  EXPECT_EQ(r.json["server_prompt_tokens"], 40.0);
  EXPECT_GE(r.json["server_kv_cache_usage_peak"].get<double>(), 0.0);
}

TEST_F(LoadCli, GoodputUnderSlo) {
  auto args = base(4);
  args.insert(args.end(), {"--slo", "ttft=1000,tpot=100"});
  auto r = run(args, "slo");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_NEAR(r.json["request_goodput"].get<double>(), r.json["request_throughput"].get<double>(), 1e-9);
  args = base(4);
  args.insert(args.end(), {"--slo", "ttft=1"});
  auto strict = run(args, "slo_strict");
  EXPECT_EQ(strict.json["request_goodput"], 0.0);
}

TEST_F(LoadCli, CompareShowsTheChange) {
  // Both files are this test's own: a run on a fresh machine compares what it just wrote.
  auto a = run(base(3), "cmp_a");
  auto b = run(base(3), "cmp_b");
  ASSERT_TRUE(a.json.is_object() && b.json.is_object());
  auto c = run({"load", "compare", a.json_path, b.json_path}, "cmp");
  EXPECT_EQ(c.exit.code, 0) << c.exit.err;
  EXPECT_NE(c.exit.out.find("median_ttft_ms"), std::string::npos);
  EXPECT_NE(c.exit.out.find('%'), std::string::npos);
  EXPECT_NE(c.exit.out.find("same model, endpoint, dataset"), std::string::npos) << c.exit.out;
}

TEST_F(LoadCli, TopLevelCompareAndReportReadLoadResults) {
  auto a = run({"load", "--url", s_server->url(), "-n", "3", "--input-len", "8", "--output-len", "4", "-c", "1,2",
                "--slo", "ttft=500", "-q"},
               "top_a");
  auto b = run(base(3), "top_b");
  ASSERT_TRUE(a.json.is_object() && b.json.is_object());
  // `dcukit compare` on two load results is `load compare`.
  auto c = run({"compare", a.json_path, b.json_path}, "top_cmp");
  EXPECT_EQ(c.exit.code, 0) << c.exit.err;
  EXPECT_NE(c.exit.out.find("median_ttft_ms"), std::string::npos) << c.exit.out;
  EXPECT_NE(c.exit.out.find("worse"), std::string::npos) << c.exit.out;
  // Judged: A's level at concurrency 1 paired with B's; B against itself has no regression.
  auto self = run({"compare", b.json_path, b.json_path, "--fail-on-regression", "--json", m_dir.file("self.json")},
                  "top_self");
  EXPECT_EQ(self.exit.code, 0) << self.exit.err;
  const auto j = nlohmann::json::parse(m_dir.read("self.json"));
  EXPECT_EQ(j["worse"], 0);
  EXPECT_FALSE(j["metrics"].empty());
  // Different load settings are refused unless forced.
  auto other = run({"load", "--url", s_server->url(), "-n", "3", "--input-len", "16", "--output-len", "4", "-q"},
                   "top_other");
  auto refused = run({"compare", b.json_path, other.json_path}, "top_refused");
  EXPECT_EQ(refused.exit.code, 2);
  EXPECT_NE(refused.exit.err.find("input_len: 8 -> 16"), std::string::npos) << refused.exit.err;
  auto forced = run({"compare", b.json_path, other.json_path, "--force"}, "top_forced");
  EXPECT_EQ(forced.exit.code, 0) << forced.exit.err;
  // `dcukit report` charts the levels: latency against concurrency with the SLO line.
  const std::string html = m_dir.file("load-report.html");
  auto r = run({"report", a.json_path, b.json_path, "-o", html, "--markdown", m_dir.file("load-report.md")}, "top_rep");
  ASSERT_EQ(r.exit.code, 0) << r.exit.err;
  const std::string page = m_dir.read("load-report.html");
  EXPECT_NE(page.find("TTFT against concurrency"), std::string::npos);
  EXPECT_NE(page.find("SLO"), std::string::npos);
  EXPECT_NE(m_dir.read("load-report.md").find("## load on"), std::string::npos);
}

TEST_F(LoadCli, ComparePairsLevelsByLoadAndSaysWhatDiffers) {
  auto a =
      run({"load", "--url", s_server->url(), "-n", "3", "--input-len", "8", "--output-len", "4", "-c", "1,2", "-q"},
          "pair_a");
  auto b =
      run({"load", "--url", s_server->url(), "-n", "3", "--input-len", "16", "--output-len", "4", "-c", "2,4", "-q"},
          "pair_b");
  ASSERT_TRUE(a.json.is_object() && b.json.is_object());
  auto c = run({"load", "compare", a.json_path, b.json_path}, "pair");
  EXPECT_EQ(c.exit.code, 0) << c.exit.err;
  EXPECT_NE(c.exit.out.find("input_len"), std::string::npos) << "the runs differ in --input-len: " << c.exit.out;
  EXPECT_NE(c.exit.out.find("Only in A, not compared: concurrency 1"), std::string::npos) << c.exit.out;
  EXPECT_NE(c.exit.out.find("Only in B, not compared: concurrency 4"), std::string::npos) << c.exit.out;
  EXPECT_NE(c.exit.out.find("\nconcurrency 2"), std::string::npos) << c.exit.out;
  const std::string empty = m_dir.write("empty.json", "{}");
  auto bad = run({"load", "compare", a.json_path, empty}, "cmp_empty");
  EXPECT_EQ(bad.exit.code, 2);
  EXPECT_NE(bad.exit.err.find("holds no load results"), std::string::npos) << bad.exit.err;
}

TEST_F(LoadCli, ApiKeyComesFromTheEnvironment) {
  FakeServer secured({"--ttft-ms", "5", "--itl-ms", "1", "--api-key", "s3cret"}, "secured");
  std::vector<std::string> args{
      "load", "--url",         secured.url(),    "-n", "2", "--input-len", "4", "--output-len", "2",
      "-q",   "--api-key-env", "DCUKIT_TEST_KEY"};
  auto ok = run(args, "key_ok", {.deadline = std::chrono::seconds(20), .env = {"DCUKIT_TEST_KEY=s3cret"}});
  ASSERT_TRUE(ok.json.is_object()) << ok.exit.err;
  EXPECT_EQ(ok.json["completed"], 2);
  auto denied = run(args, "key_missing", {.deadline = std::chrono::seconds(20)});
  EXPECT_EQ(denied.exit.code, 1);
  EXPECT_NE(denied.exit.err.find("HTTP 401"), std::string::npos) << denied.exit.err;
  EXPECT_NE(denied.exit.err.find("API key"), std::string::npos) << denied.exit.err;
  args.push_back("--no-trial");
  auto all = run(args, "key_missing_all", {.deadline = std::chrono::seconds(20)});
  ASSERT_TRUE(all.json.is_object()) << all.exit.err;
  EXPECT_EQ(all.json["http_status_counts"]["401"], 2);
}

TEST_F(LoadCli, WaitReadyPollsHealthThenModels) {
  FakeServer slow({"--ready-after-ms", "600"}, "slow");
  auto ok =
      run({"load", "--url", slow.url(), "--wait-ready", "10", "-n", "2", "--input-len", "4", "--output-len", "2", "-q"},
          "ready_ok", {.deadline = std::chrono::seconds(20)});
  ASSERT_TRUE(ok.json.is_object()) << ok.exit.err;
  EXPECT_EQ(ok.json["completed"], 2);
  FakeServer slower({"--ready-after-ms", "60000"}, "slower");
  auto late = run({"load", "--url", slower.url(), "--wait-ready", "0.5", "-n", "2", "-q"}, "ready_late",
                  {.deadline = std::chrono::seconds(20)});
  EXPECT_EQ(late.exit.code, 1);
  EXPECT_NE(late.exit.err.find("not ready"), std::string::npos) << late.exit.err;
}

TEST_F(LoadCli, BadInputIsRejectedBeforeSending) {
  auto r =
      run({"load", "--url", s_server->url(), "--slo", "ttft=abc"}, "bad_slo", {.deadline = std::chrono::seconds(10)});
  EXPECT_EQ(r.exit.code, 2);
  EXPECT_NE(r.exit.err.find("--slo"), std::string::npos);
  auto r2 = run({"load", "--url", s_server->url(), "-c", "0"}, "bad_conc", {.deadline = std::chrono::seconds(10)});
  EXPECT_EQ(r2.exit.code, 2);
  auto r3 =
      run({"load", "--url", s_server->url(), "--threads", "-1"}, "bad_threads", {.deadline = std::chrono::seconds(10)});
  EXPECT_EQ(r3.exit.code, 2);
  EXPECT_NE(r3.exit.err.find("--threads"), std::string::npos) << r3.exit.err;
}

}  // namespace

// A `vllm bench serve` command line runs as written: its flag names are aliases, --save-result
// writes vLLM's file, named as vLLM names it, with the fields vLLM's readers take.
TEST_F(LoadCli, VllmBenchServeFlagsAndResultFile) {
  const std::string out = m_dir.file("vllm-results");
  auto r = run({"load", "--base-url", s_server->url(), "--dataset-name", "random", "--random-input-len", "8",
                "--random-output-len", "4", "--num-prompts", "5", "--max-concurrency", "2", "--ignore-eos",
                "--goodput", "ttft:5000", "tpot:5000", "--label", "nightly", "--save-result", "--result-dir", out,
                "--disable-tqdm", "--timeout", "2"},
               "vllm_flags");
  ASSERT_EQ(r.exit.code, 0) << r.exit.err;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(out)) files.push_back(e.path().filename().string());
  ASSERT_EQ(files.size(), 1u);
  // {label}-{rate}qps-concurrency{N}-{model}-{%Y%m%d-%H%M%S}.json
  EXPECT_TRUE(std::regex_match(files[0], std::regex(R"(nightly-infqps-concurrency2-.+-\d{8}-\d{6}\.json)")))
      << files[0];
  const auto j = nlohmann::json::parse(itest::slurp(out + "/" + files[0]));
  EXPECT_EQ(j["label"], "nightly");
  EXPECT_EQ(j["endpoint_type"], "openai");
  EXPECT_EQ(j["num_prompts"], 5);
  EXPECT_EQ(j["completed"], 5);
  EXPECT_EQ(j["max_concurrency"], 2);
  EXPECT_EQ(j["request_rate"], "inf");
  EXPECT_TRUE(std::regex_match(j["date"].get<std::string>(), std::regex(R"(\d{8}-\d{6})"))) << j["date"];
  EXPECT_EQ(j["request_goodput"], j["request_throughput"]) << "every request within the --goodput SLOs";
  EXPECT_EQ(j["slo_ttft_ms"], 5000.0);
}

TEST_F(LoadCli, ResultFileFlagsNeedSaveResultAndOneLevel) {
  auto e = run({"load", "--url", s_server->url(), "--result-dir", m_dir.path(), "-q"}, "no_save");
  EXPECT_EQ(e.exit.code, 2);
  EXPECT_NE(e.exit.err.find("add --save-result"), std::string::npos) << e.exit.err;
  e = run({"load", "--url", s_server->url(), "-c", "1,2", "--save-result", "--result-filename", "x.json", "-q"},
          "two_levels");
  EXPECT_EQ(e.exit.code, 2);
  EXPECT_NE(e.exit.err.find("this run has 2 levels"), std::string::npos) << e.exit.err;
  e = run({"load", "--url", s_server->url(), "--goodput", "ttft500", "-q"}, "bad_goodput");
  EXPECT_EQ(e.exit.code, 2);
  EXPECT_NE(e.exit.err.find("KEY:VALUE"), std::string::npos) << e.exit.err;
}

// --json has one shape whatever the number of levels: run_info first, schema_version, runs.
TEST_F(LoadCli, TheJsonHasOneShapeForOneLevelAndMany) {
  auto one = run(base(2), "one_level");
  auto args = base(2);
  args.insert(args.end(), {"-c", "1,2"});
  auto two = run(args, "two_levels");
  ASSERT_TRUE(one.file.is_object()) << one.exit.err;
  ASSERT_TRUE(two.file.is_object()) << two.exit.err;
  for (const auto* r : {&one, &two}) {
    const auto f = nlohmann::ordered_json::parse(itest::slurp(r->json_path));  // in the file's order
    EXPECT_EQ(f.begin().key(), "run_info");
    EXPECT_EQ(f["schema_version"], 2);
    ASSERT_TRUE(f["runs"].is_array());
  }
  EXPECT_EQ(one.file["runs"].size(), 1u);
  EXPECT_EQ(two.file["runs"].size(), 2u);
  std::vector<std::string> a, b;
  for (const auto& [k, v] : one.file.items()) a.push_back(k);
  for (const auto& [k, v] : two.file.items()) b.push_back(k);
  EXPECT_EQ(a, b) << "the same top-level fields";
}

TEST_F(LoadCli, OffATerminalProgressIsPlainLinesWithTheCountAndDisableTqdmHidesIt) {
  // stderr is a file here: --progress auto gives plain lines, one as each level starts and one as it ends.
  auto args = base(6);
  args.pop_back();  // not -q
  args.insert(args.end(), {"-c", "1,2"});
  auto r = run(args, "plain_progress");
  ASSERT_EQ(r.exit.code, 0) << r.exit.err;
  EXPECT_EQ(r.exit.err.find('\r'), std::string::npos) << "no redraws in a log: " << r.exit.err;
  EXPECT_NE(r.exit.err.find("[1/2] "), std::string::npos) << r.exit.err;
  EXPECT_NE(r.exit.err.find("[2/2] "), std::string::npos) << r.exit.err;
  EXPECT_NE(r.exit.err.find(": 6 of 6 done (0 failed), 0 in flight"), std::string::npos) << r.exit.err;
  auto hidden = args;
  hidden.push_back("--disable-tqdm");
  auto h = run(hidden, "no_progress");
  ASSERT_EQ(h.exit.code, 0) << h.exit.err;
  EXPECT_EQ(h.exit.err.find(" done ("), std::string::npos) << h.exit.err;
  EXPECT_NE(h.exit.out.find("TTFT"), std::string::npos) << "the tables stay: " << h.exit.out.substr(0, 300);
}
