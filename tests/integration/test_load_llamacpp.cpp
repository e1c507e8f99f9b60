// dcukit load against the real llama.cpp server (../shared/peers/llama.cpp, a CPU build and a
// tiny model), with its defaults: each test holds dcukit's token counts and time per output
// token against the server's own log lines ("n_prompt_tokens", "eval time = X ms / N tokens").
// The server runs on 2 threads, so prompts are short and counts small. Skipped where ../shared
// is absent (a user's clone).
#include <optional>

#include "fixture.h"
#include "llama_server.h"

namespace {

using itest::LlamaServer;
using itest::run_dcukit;

constexpr const char* kPeer = "peers/llama.cpp";
// Our decode span against the server's own, summed over a level: a third apart plus 30 ms of
// delivery delays (the server's and ours) is what a loaded 2-core machine stays within; a span
// off by half (counting the whole request, or twice the tokens) is not.
constexpr double kSpanTolerance = 0.35;
constexpr double kDelayMs = 30.0;

class LoadLlamaCpp : public ::testing::Test {
protected:
  testutil::TempDir m_dir{"load_llamacpp"};

  itest::Run run(const LlamaServer& server, std::vector<std::string> extra, const std::string& name) {
    std::vector<std::string> args{"load", "--url", server.url(), "--wait-ready", "60", "--timeout", "60", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_dcukit(m_dir, args, name, {.deadline = std::chrono::seconds(100)});
  }

  /// The level's requests (c=1: in the order the server served them) against the server's log
  /// entries from `first` on (by default its last ones): the same prompt and output token
  /// counts, and the same time per output token.
  static void expect_matches_log(const nlohmann::json& level, const itest::ServerLog& log,
                                 std::optional<std::size_t> first = std::nullopt) {
    const auto& reqs = level["requests"];
    const std::size_t n = reqs.size();
    ASSERT_GE(log.prompt_tokens.size(), first.value_or(0) + n);
    ASSERT_GE(log.evals.size(), first.value_or(0) + n);
    const std::size_t p0 = first.value_or(log.prompt_tokens.size() - n), e0 = first.value_or(log.evals.size() - n);
    double ours = 0, theirs = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& q = reqs[i];
      ASSERT_TRUE(q["ok"].get<bool>()) << q.dump();
      EXPECT_EQ(q["input_tokens"], log.prompt_tokens[p0 + i]) << "request " << i;
      EXPECT_EQ(q["output_tokens"], log.evals[e0 + i].tokens) << "request " << i;
      const int tokens = q["output_tokens"];
      if (tokens < 2) continue;
      // The server's eval time runs from its first sampled token to its last: N - 1 steps, the
      // span we measure between the first and the last token.
      ours += q["last_token_ms"].get<double>() - q["first_token_ms"].get<double>();
      theirs += log.evals[e0 + i].ms;
    }
    // The two clocks see the same span, shifted by each side's delivery delays.
    EXPECT_NEAR(ours, theirs, kSpanTolerance * theirs + kDelayMs) << "the level's decode time, ours against the server's";
  }
};

#define START_LLAMA(server, name)        \
  DCUKIT_REQUIRE_SHARED(peer, kPeer);    \
  LlamaServer server(peer, m_dir, name); \
  if (!server.ready()) GTEST_SKIP() << "llama-server did not start here: " << server.output().substr(0, 500)

TEST_F(LoadLlamaCpp, TheDefaultDatasetRunsAndCountsAsTheServerDoes) {
  START_LLAMA(server, "default");
  auto r = run(server, {"-n", "4", "--input-len", "16", "--output-len", "8"}, "default");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 0) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 4) << r.json["first_error"];
  EXPECT_EQ(r.json["prompts"], "text") << "llama.cpp refuses token ids";
  EXPECT_EQ(r.json["prompt_tokens_counted_by"], "llama.cpp /tokenize");
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({16, 16, 16, 16}));
  EXPECT_EQ(r.json["total_output_tokens"], 32);
  expect_matches_log(r.json, server.log());
}

TEST_F(LoadLlamaCpp, TheChatEndpointCountsTheTemplate) {
  START_LLAMA(server, "chat");
  auto r =
      run(server, {"--endpoint", "/v1/chat/completions", "-n", "3", "--input-len", "48", "--output-len", "6"}, "chat");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 3) << r.json["first_error"];
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({48, 48, 48})) << "template included, as the server counts";
  expect_matches_log(r.json, server.log());
}

TEST_F(LoadLlamaCpp, ShareGptTakesEachAnswersLength) {
  START_LLAMA(server, "sharegpt");
  const auto conv = [](const std::string& q, const std::string& a) {
    return nlohmann::json{{"conversations", {{{"from", "human"}, {"value", q}}, {{"from", "gpt"}, {"value", a}}}}};
  };
  const nlohmann::json data = nlohmann::json::array(
      {conv("What is the capital of France, and why is it famous?", "Paris, known for art and food."),
       conv("Name three colours of the rainbow.", "Red, orange and yellow are three of them."),
       conv("Hi", "Hello there, how can I help?"),  // a prompt under 4 tokens: left out, as vLLM does
       conv("How many legs does a spider have?", "A spider has eight legs.")});
  const std::string path = m_dir.write("sharegpt.json", data.dump());
  auto r = run(server, {"--dataset", "sharegpt", "--dataset-path", path, "-n", "3"}, "sharegpt");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 3) << r.json["first_error"];
  for (const auto& q : r.json["requests"]) EXPECT_GE(q["output_tokens"].get<int>(), 4) << "never 1";
  EXPECT_NE(r.json["notes"].dump().find("left out as vLLM leaves them out"), std::string::npos) << r.json["notes"];
  expect_matches_log(r.json, server.log());
}

TEST_F(LoadLlamaCpp, MetricsUrlReadsLlamaCppsNamesAndLeavesTheRestNull) {
  START_LLAMA(server, "metrics");
  auto r =
      run(server, {"-n", "3", "--input-len", "12", "--output-len", "6", "--metrics-url", server.url() + "/metrics"},
          "metrics");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["server_metrics_dialect"], "llamacpp");
  EXPECT_EQ(r.json["server_generation_tokens"].get<double>(), r.json["total_output_tokens"].get<double>());
  // Its prompt counter counts only what it evaluated (a cached prefix is not), so at most ours.
  EXPECT_GT(r.json["server_prompt_tokens"].get<double>(), 0);
  EXPECT_LE(r.json["server_prompt_tokens"].get<double>(), r.json["total_input_tokens"].get<double>());
  EXPECT_TRUE(r.json["server_kv_cache_usage_peak"].is_null()) << "not exposed: null, never 0";
  EXPECT_TRUE(r.json["server_preemptions"].is_null());
  expect_matches_log(r.json, server.log());
}

TEST_F(LoadLlamaCpp, ASweepAddsUpToTheServersLog) {
  START_LLAMA(server, "sweep");
  auto r = run(server, {"-n", "4", "--input-len", "12", "--output-len", "6", "-c", "1,2"}, "sweep");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  ASSERT_EQ(r.json["runs"].size(), 2u);
  const auto log = server.log();
  ASSERT_GE(log.evals.size(), 8u);
  expect_matches_log(r.json["runs"][0], log, log.evals.size() - 8);  // level 1 ran one at a time
  // Level 2 ran two at a time: the log's order is not the requests' order, but the totals agree.
  const auto& l2 = r.json["runs"][1];
  ASSERT_GE(log.evals.size(), 4u);
  int tokens = 0;
  double ms = 0, ours = 0;
  for (std::size_t i = log.evals.size() - 4; i < log.evals.size(); ++i) {
    tokens += log.evals[i].tokens;
    ms += log.evals[i].ms;
  }
  for (const auto& q : l2["requests"]) ours += q["last_token_ms"].get<double>() - q["first_token_ms"].get<double>();
  EXPECT_EQ(l2["total_output_tokens"], tokens);
  EXPECT_NEAR(ours, ms, kSpanTolerance * ms + kDelayMs);
}

TEST_F(LoadLlamaCpp, AServerKilledMidRunKeepsTheLevelsMeasured) {
  START_LLAMA(server, "killed");
  const std::string json_path = m_dir.file("killed.json");
  itest::Child child({DCUKIT_BINARY,
                      "load",
                      "--url",
                      server.url(),
                      "--wait-ready",
                      "60",
                      "-c",
                      "1,2",
                      "-n",
                      "3",
                      "--input-len",
                      "8",
                      "--output-len",
                      "256",
                      "--timeout",
                      "60",
                      "-q",
                      "--metrics-url",
                      server.url() + "/metrics",
                      "--json",
                      json_path,
                      "--save-detailed"},
                     m_dir.file("killed"));
  // Kill it once level 1 is done (its three requests and the trial are in the log) and level 2 runs.
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < end && server.log().evals.size() < 4 && !child.finished())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Level 2 has just begun: its requests take long enough (256 tokens each) to be cut.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  server.kill();
  const itest::ServerLog log = server.log();
  const auto exit = child.wait(std::chrono::seconds(90));
  EXPECT_EQ(exit.code, 1) << exit.err;
  const auto j = nlohmann::json::parse(itest::slurp(json_path), nullptr, false);
  ASSERT_TRUE(j.is_object()) << exit.err;
  ASSERT_EQ(j["runs"].size(), 2u) << "both levels are in the results";
  EXPECT_EQ(j["runs"][0]["completed"], 3);
  EXPECT_EQ(j["runs"][0]["server_generation_tokens"], 3 * 256.0);
  EXPECT_GT(j["runs"][1]["failed"].get<int>(), 0);
  ASSERT_GE(log.evals.size(), 4u) << "the trial and level 1";
  expect_matches_log(j["runs"][0], log, 1);  // after the trial
}

}  // namespace
