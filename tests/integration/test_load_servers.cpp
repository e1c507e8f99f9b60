// dcukit load against servers that behave as the real ones do where they differ (the fake
// server speaking llama.cpp's, TGI's, SGLang's ways): what it sends, what it reads, and what it
// falls back to; and what it keeps when the server dies mid-run.
#include "fixture.h"

namespace {

using itest::FakeServer;
using itest::run_dcukit;

class LoadServers : public ::testing::Test {
protected:
  testutil::TempDir m_dir{"load_servers"};
  itest::Run run(const FakeServer& s, std::vector<std::string> extra, const std::string& name,
                 itest::RunOptions o = {}) {
    const auto args = itest::with(
        {"load", "--url", s.url(), "-n", "4", "--input-len", "12", "--output-len", "4", "--timeout", "5", "-q"}, extra);
    if (o.deadline == std::chrono::seconds(60)) o.deadline = std::chrono::seconds(30);
    return run_dcukit(m_dir, args, name, o);
  }
  static std::string notes(const itest::Run& r) { return r.json.is_object() ? r.json["notes"].dump() : ""; }
};

TEST_F(LoadServers, TheDefaultDatasetFallsBackToTextWhereTokenIdsAreRefused) {
  FakeServer llama({"--ttft-ms", "5", "--itl-ms", "1", "--reject-token-ids", "--tokenize", "llamacpp"}, "llama_like");
  auto r = run(llama, {}, "fallback");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 0) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 4);
  EXPECT_EQ(r.json["prompts"], "text");
  EXPECT_EQ(r.json["prompt_tokens_counted_by"], "llama.cpp /tokenize");
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({12, 12, 12, 12})) << "never a count of 0";
  EXPECT_NE(notes(r).find("prompt must be a string"), std::string::npos) << notes(r);
  // --prompt ids says what it wants: no fallback, and the trial says why.
  auto ids = run(llama, {"--prompt", "ids"}, "ids_refused");
  EXPECT_EQ(ids.exit.code, 1);
  EXPECT_NE(ids.exit.err.find("prompt must be a string"), std::string::npos) << ids.exit.err;
}

TEST_F(LoadServers, EachTokenizeDialectAndUsageWhereThereIsNone) {
  for (const char* dialect : {"vllm", "llamacpp", "tgi", "none"}) {
    FakeServer s({"--ttft-ms", "5", "--itl-ms", "1", "--tokenize", dialect}, std::string("tok_") + dialect);
    auto r = run(s, {"--prompt", "text", "--input-len", "20", "--prefix-len", "5"}, std::string("tok_") + dialect);
    ASSERT_TRUE(r.json.is_object()) << dialect << ": " << r.exit.err;
    EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({20, 20, 20, 20})) << dialect;
    const std::string by = r.json["prompt_tokens_counted_by"];
    EXPECT_NE(by.find(std::string(dialect) == "none"       ? "usage"
                      : std::string(dialect) == "llamacpp" ? "llama.cpp"
                      : std::string(dialect) == "tgi"      ? "TGI"
                                                           : "vLLM"),
              std::string::npos)
        << dialect << ": " << by;
  }
}

TEST_F(LoadServers, ChatPromptsAreCountedWithTheTemplate) {
  FakeServer s({"--ttft-ms", "5", "--itl-ms", "1", "--tokenize", "llamacpp", "--template-tokens", "9"}, "chat_tpl");
  auto r = run(s, {"--endpoint", "/v1/chat/completions", "--input-len", "24"}, "chat_tpl");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({24, 24, 24, 24})) << "template included, as the server counts";
  EXPECT_EQ(r.json["prompt_tokens_counted_by"], "usage of one-token requests");
}

TEST_F(LoadServers, AServerThatClosesAfterEachReplyCausesNoFalseDrops) {
  // libcurl 7.88 counts retries per handle and never resets them: reused handles failed 1-10%
  // of requests against llama.cpp ("Connection died, tried 5 times").
  FakeServer s({"--ttft-ms", "2", "--itl-ms", "1", "--close-after-reply"}, "closer");
  auto r = run(s, {"-n", "120", "--input-len", "4", "--output-len", "2", "-c", "1"}, "closer",
               {.deadline = std::chrono::seconds(60)});
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 120) << r.json["first_error"];
  EXPECT_EQ(r.json["errors_dropped"], 0);
}

// A server that cut every prompt ran nothing at the length asked for: the figures are written
// (with the server's counts) but the run fails and says why.
TEST_F(LoadServers, EveryPromptCutIsAFailedRunWithTheServersCount) {
  FakeServer s({"--ttft-ms", "5", "--itl-ms", "1", "--max-prompt-tokens", "10"}, "truncating");
  auto r = run(s, {"--input-len", "16"}, "truncated");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 1) << r.exit.err;
  EXPECT_NE(r.exit.err.find("the server cut every prompt (4 of 4"), std::string::npos) << r.exit.err;
  EXPECT_NE(r.exit.err.find("--max-model-len"), std::string::npos) << r.exit.err;
  EXPECT_EQ(r.json["truncated_prompts"], 4);
  EXPECT_EQ(r.json["input_lens"], nlohmann::json::array({10, 10, 10, 10}));
  EXPECT_NE(r.json["problem"].dump().find("cut every prompt"), std::string::npos) << r.json["problem"];
}

TEST_F(LoadServers, EachMetricsDialectAndWhatItLacksIsNull) {
  struct Case {
    const char* dialect;
    bool kv;
  };
  for (const Case c : {Case{"vllm", true}, Case{"sglang", true}, Case{"llamacpp", false}, Case{"tgi", false}}) {
    FakeServer s({"--ttft-ms", "5", "--itl-ms", "1", "--metrics", c.dialect}, std::string("m_") + c.dialect);
    auto r = run(s, {"--metrics-url", s.url() + "/metrics"}, std::string("m_") + c.dialect);
    ASSERT_TRUE(r.json.is_object()) << r.exit.err;
    EXPECT_EQ(r.json["server_metrics_dialect"], c.dialect);
    EXPECT_EQ(r.json["server_prompt_tokens"], 48.0) << c.dialect;
    EXPECT_EQ(r.json["server_generation_tokens"], 16.0) << c.dialect;
    EXPECT_EQ(r.json["server_kv_cache_usage_peak"].is_null(), !c.kv) << c.dialect;
    if (!c.kv) {
      EXPECT_TRUE(r.json["server_preemptions"].is_null()) << c.dialect << ": absent, never 0";
    }
  }
  FakeServer none({"--ttft-ms", "5", "--itl-ms", "1", "--metrics", "none"}, "m_none");
  auto r = run(none, {"--metrics-url", none.url() + "/metrics"}, "m_none");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_TRUE(r.json["server_prompt_tokens"].is_null());
  EXPECT_TRUE(r.json["server_metrics_dialect"].is_null());
}

TEST_F(LoadServers, AServerCrashKeepsEveryLevelMeasuredSoFar) {
  FakeServer s({"--ttft-ms", "5", "--itl-ms", "20"}, "crashing");
  const std::string json_path = m_dir.file("crash.json");
  itest::Child child(
      {DCUKIT_BINARY, "load", "--url", s.url(), "-c", "1,2,4", "-n", "3", "--input-len", "4", "--output-len", "40",
       "--timeout", "5", "--metrics-url", s.url() + "/metrics", "-q", "--json", json_path},
      m_dir.file("crash"));
  // The trial and level 1 are four requests one at a time; level 2 sends two at a time. The server
  // dies once level 2's first request has come (the fifth): an event, not a time.
  ASSERT_TRUE(s.wait_count("fake_requests_total", 5)) << child.out();
  s.kill();
  const auto exit = child.wait(std::chrono::seconds(30));
  EXPECT_EQ(exit.code, 1) << exit.err;
  const auto j = nlohmann::json::parse(itest::slurp(json_path), nullptr, false);
  ASSERT_TRUE(j.is_object()) << exit.err;
  ASSERT_GE(j["runs"].size(), 2u) << "the levels before and during the crash are kept";
  EXPECT_EQ(j["runs"][0]["completed"], 3);
  EXPECT_EQ(j["runs"][0]["server_generation_tokens"], 120.0) << "its metrics too";
  EXPECT_GT(j["runs"][1]["failed"].get<int>(), 0);
  EXPECT_FALSE(j["runs"][1]["server_metrics_error"].is_null()) << "the last scrape of level 2 failed";
  EXPECT_NE(exit.err.find("requests failed"), std::string::npos) << exit.err;
}

TEST_F(LoadServers, MaxConcurrencyAloneIsVllmsUnlimitedRateCapped) {
  FakeServer s({"--ttft-ms", "20", "--itl-ms", "5"}, "capped");
  auto r = run(s, {"-n", "16", "--max-concurrency", "4"}, "capped");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["load_shape"], "open");
  EXPECT_EQ(r.json["request_rate"], "inf");
  EXPECT_EQ(r.json["max_concurrency"], 4);
  EXPECT_EQ(r.json["max_concurrent_requests"], 4) << "not concurrency 1";
  EXPECT_EQ(r.json["completed"], 16);
}

TEST_F(LoadServers, NotesForWhatTheServerIgnoredOrLacks) {
  FakeServer s({"--ttft-ms", "5", "--itl-ms", "1"}, "notes");
  auto cont = run(s, {"--continuous-usage", "-H", "X-Fake-Mode: ignore_continuous"}, "cont_ignored");
  ASSERT_TRUE(cont.json.is_object()) << cont.exit.err;
  EXPECT_NE(notes(cont).find("ignored --continuous-usage"), std::string::npos) << notes(cont);
  auto other = run(s, {"--model", "not-served"}, "model_not_listed");
  ASSERT_TRUE(other.json.is_object()) << other.exit.err;
  EXPECT_NE(notes(other).find("does not list the model not-served"), std::string::npos) << notes(other);
  EXPECT_NE(notes(other).find("fake-model"), std::string::npos);
}

TEST_F(LoadServers, SaveDetailedMetadataAndPercentilesAsVllmDefinesThem) {
  FakeServer s({"--ttft-ms", "5", "--itl-ms", "1"}, "vllm_flags");
  auto plain = run(s, {}, "plain", {.detailed = false});
  ASSERT_TRUE(plain.json.is_object()) << plain.exit.err;
  EXPECT_FALSE(plain.json.contains("itls"));
  EXPECT_FALSE(plain.json.contains("generated_texts"));
  auto r = run(s,
               {"--metadata", "tp=2", "--metadata", "card=K100,build=dtk-24", "--percentile-metrics", "ttft,e2el",
                "--metric-percentiles", "25,50,99.9"},
               "vllm_flags");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["tp"], "2");
  EXPECT_EQ(r.json["card"], "K100");
  EXPECT_EQ(r.json["build"], "dtk-24");
  EXPECT_TRUE(r.json.contains("p25_ttft_ms"));
  EXPECT_TRUE(r.json.contains("p99.9_e2el_ms"));
  EXPECT_FALSE(r.json.contains("p99_ttft_ms"));
  EXPECT_FALSE(r.json.contains("mean_tpot_ms")) << "tpot was not asked for";
  ASSERT_EQ(r.json["generated_texts"].size(), 4u);
  EXPECT_EQ(r.json["generated_texts"][0], " tok tok tok tok");
  EXPECT_EQ(r.json["errors"], nlohmann::json::array({"", "", "", ""}));
}

}  // namespace
