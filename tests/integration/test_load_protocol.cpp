// Each case of the protocol list, once: the fake server misbehaves (X-Fake-Mode), the
// real dcukit binary runs to the end, and the misbehaviour lands in the right place. Runs whose
// every request fails pass --no-trial: the trial request would stop them before the load.
#include <algorithm>

#include "fixture.h"
#include "no_hang.h"

namespace {

using itest::FakeServer;
using itest::run_dcukit;

constexpr int kRequests = 6;
constexpr int kOutput = 8;

class LoadProtocol : public itest::ServerSuite<LoadProtocol> {
public:
  static constexpr const char* kName = "protocol";
  static std::vector<std::string> flags() { return {"--ttft-ms", "20", "--itl-ms", "5"}; }

protected:
  /// Runs kRequests requests with the given modes (and extra flags) and returns the JSON.
  static itest::Run run(const std::string& modes, std::vector<std::string> extra = {},
                        const std::string& endpoint = "/v1/completions") {
    std::vector<std::string> args{"load",
                                  "--url",
                                  s_server->url(),
                                  "--endpoint",
                                  endpoint,
                                  "-n",
                                  std::to_string(kRequests),
                                  "-c",
                                  "3",
                                  "--input-len",
                                  "16",
                                  "--output-len",
                                  std::to_string(kOutput),
                                  "-q"};
    // Each option once (dcukit refuses a repeated one): extra's --timeout replaces the default,
    // kNoHang, which a loaded, sanitized machine stays far within (a 1 MiB line took 3.3 s so).
    if (std::find(extra.begin(), extra.end(), "--timeout") == extra.end())
      args.insert(args.end(), {"--timeout", std::to_string(testutil::kNoHang.count())});
    if (!modes.empty()) {
      args.push_back("-H");
      args.push_back("X-Fake-Mode: " + modes);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    std::string name = modes + endpoint;
    for (char& ch : name)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    testutil::TempDir dir("protocol");
    auto r = run_dcukit(dir, args, name, {.deadline = std::chrono::seconds(30)});
    EXPECT_FALSE(r.exit.timed_out) << "dcukit did not finish";
    EXPECT_TRUE(r.json.is_object()) << r.exit.err;
    return r;
  }

  static void expect_all_ok(const itest::Run& r, int tokens = kOutput) {
    ASSERT_TRUE(r.json.is_object()) << r.exit.err;
    EXPECT_EQ(r.exit.code, 0) << r.exit.err;
    EXPECT_EQ(r.json["completed"], kRequests) << r.json["errors"].dump();
    EXPECT_EQ(r.json["failed"], 0);
    EXPECT_EQ(r.json["total_output_tokens"], kRequests * tokens);
  }

  /// The server waits 20 ms before the first token: a measured TTFT is never below it, and the
  /// first token comes before the last. How close to 20 ms it is measured on an idle machine is
  /// the load-overhead benchmark's (docs/results/load-overhead.md): a loaded one adds its delays.
  static void expect_ttft_from_20(const itest::Run& r) {
    EXPECT_GE(r.json["median_ttft_ms"].get<double>(), 19.5);
    EXPECT_LE(r.json["median_ttft_ms"].get<double>(), r.json["median_e2el_ms"].get<double>());
    itest::expect_times_consistent(r.json);
  }

  static void expect_all_failed(const itest::Run& r, const std::string& error_class) {
    ASSERT_TRUE(r.json.is_object()) << r.exit.err;
    EXPECT_EQ(r.exit.code, 1) << "a run with no success exits 1";
    EXPECT_EQ(r.json["completed"], 0);
    EXPECT_EQ(r.json["failed"], kRequests);
    EXPECT_EQ(r.json["errors_" + error_class], kRequests) << r.json["errors"].dump();
  }
};

TEST_F(LoadProtocol, CleanStreamMeasuresKnownTtftAndItl) {
  const auto r = run("");
  expect_all_ok(r);
  expect_ttft_from_20(r);
  // The last of 8 tokens leaves the server 20 + 7 x 5 ms after the request: never sooner here.
  EXPECT_GE(r.json["median_e2el_ms"].get<double>(), 20.0 + 7 * 5.0 - 0.5);
  // Each request's gaps add up to its time from the first token to the last (one token a chunk).
  for (std::size_t i = 0; i < r.json["requests"].size(); ++i) {
    const auto& q = r.json["requests"][i];
    double gaps = 0;
    for (const auto& g : r.json["itls"][i]) gaps += g.get<double>() * 1000.0;
    EXPECT_NEAR(gaps, q["last_token_ms"].get<double>() - q["first_token_ms"].get<double>(), 1e-3) << q.dump();
  }
  EXPECT_GE(r.json["median_itl_ms"].get<double>(), 0.0);
  EXPECT_GE(r.json["median_tpot_ms"].get<double>(), 0.0);
  EXPECT_EQ(r.json["total_input_tokens"], kRequests * 16);
  EXPECT_EQ(r.json["itls"].size(), static_cast<std::size_t>(kRequests));
  EXPECT_EQ(r.json["itls"][0].size(), static_cast<std::size_t>(kOutput - 1));
}

TEST_F(LoadProtocol, ChatStream) {
  expect_all_ok(run("", {}, "/v1/chat/completions"));
}
TEST_F(LoadProtocol, EventsSplitAcrossReads) {
  expect_all_ok(run("split"));
}
TEST_F(LoadProtocol, SeveralEventsInOneRead) {
  expect_all_ok(run("coalesce"));
}
TEST_F(LoadProtocol, Utf8SplitAcrossReads) {
  expect_all_ok(run("utf8"));
}
TEST_F(LoadProtocol, CrlfLineEndings) {
  expect_all_ok(run("crlf"));
}
TEST_F(LoadProtocol, CommentLines) {
  expect_all_ok(run("comments"));
}
TEST_F(LoadProtocol, DataWithoutSpace) {
  expect_all_ok(run("nospace"));
}
TEST_F(LoadProtocol, AllQuirksTogether) {
  expect_all_ok(run("split,crlf,comments,nospace,utf8"));
}
TEST_F(LoadProtocol, LinesOverOneMiB) {
  expect_all_ok(run("longline"));
}

TEST_F(LoadProtocol, RoleOnlyAndEmptyChunksDoNotCountAsFirstToken) {
  const auto r = run("roleonly", {}, "/v1/chat/completions");
  expect_all_ok(r);
  EXPECT_GT(r.json["median_ttft_ms"].get<double>(), 15.0) << "the role-only chunk came at once";
  EXPECT_EQ(r.json["itls"][0].size(), static_cast<std::size_t>(kOutput - 1));
}

TEST_F(LoadProtocol, ReasoningContentCountsAsTokens) {
  const auto r = run("reasoning", {}, "/v1/chat/completions");
  expect_all_ok(r);
  EXPECT_EQ(r.json["requests"][0]["reasoning_chunks"], kOutput / 2);
  expect_ttft_from_20(r);
}

TEST_F(LoadProtocol, SeveralTokensPerChunk) {
  const auto r = run("multi");
  expect_all_ok(r);
  EXPECT_EQ(r.json["requests"][0]["chunks"], 3);  // 8 tokens, 3 a chunk
  EXPECT_EQ(r.json["requests"][0]["chunk_tokens"], nlohmann::json::array({3, 3, 2}));
  // Each gap is shared by the 2 or 3 tokens its chunk brought.
  EXPECT_LT(r.json["median_itl_token_ms"].get<double>(), r.json["median_itl_ms"].get<double>());
  EXPECT_GT(r.json["median_itl_ms"].get<double>(), 0.0);
}

TEST_F(LoadProtocol, ContinuousUsageGivesExactTokensPerChunk) {
  // 8 tokens, 3 a chunk (3, 3, 2), the first chunk's text padded: by bytes it would hold 5.
  const auto guess = run("multi,skew");
  const auto exact = run("multi,skew", {"--continuous-usage"});
  expect_all_ok(guess);
  expect_all_ok(exact);
  for (const auto& q : exact.json["requests"]) {
    EXPECT_EQ(q["chunk_tokens"], nlohmann::json::array({3, 3, 2})) << q.dump();
    EXPECT_TRUE(q["chunk_tokens_exact"].get<bool>());
  }
  // The byte-share estimate gives the padded first chunk the most: 5, 2, 1.
  for (const auto& q : guess.json["requests"]) {
    EXPECT_EQ(q["chunk_tokens"], nlohmann::json::array({5, 2, 1})) << q.dump();
    EXPECT_FALSE(q["chunk_tokens_exact"].get<bool>());
  }
}

TEST_F(LoadProtocol, MissingUsageFallsBackToChunks) {
  const auto r = run("nousage");
  expect_all_ok(r);
  EXPECT_EQ(r.json["usage_missing"], kRequests);
}

TEST_F(LoadProtocol, ErrorEventAfter200) {
  expect_all_failed(run("error", {"--no-trial"}), "stream_error");
}
TEST_F(LoadProtocol, ConnectionDroppedBeforeDone) {
  expect_all_failed(run("drop", {"--no-trial"}), "dropped");
}
TEST_F(LoadProtocol, StreamThatNeverEndsHitsTheDeadline) {
  expect_all_failed(run("hang", {"--timeout", "0.5", "--no-trial"}), "timeout");
}
TEST_F(LoadProtocol, MalformedJsonIsProtocol) {
  expect_all_failed(run("badjson", {"--no-trial"}), "protocol");
}

TEST_F(LoadProtocol, HttpStatusesAreCountedByCode) {
  const auto r = run("status=503", {"--no-trial"});
  expect_all_failed(r, "http_status");
  EXPECT_EQ(r.json["http_status_counts"]["503"], kRequests);
  const auto r2 = run("status=429", {"--no-trial"});
  expect_all_failed(r2, "http_status");
  EXPECT_EQ(r2.json["http_status_counts"]["429"], kRequests);
}

TEST_F(LoadProtocol, AFailedTrialRequestStopsTheRunBeforeTheLoad) {
  testutil::TempDir dir("trial");
  auto r = run_dcukit(dir,
                      {"load", "--url", s_server->url(), "-n", "50", "--input-len", "4", "--output-len", "2", "-H",
                       "X-Fake-Mode: status=503", "-q"},
                      "trial", {.deadline = std::chrono::seconds(20)});
  EXPECT_EQ(r.exit.code, 1);
  itest::expect_stopped_with(r, "the trial request failed (http_status: HTTP 503");
  EXPECT_NE(r.exit.err.find("the trial request failed (http_status: HTTP 503"), std::string::npos) << r.exit.err;
  EXPECT_NE(r.exit.err.find("nothing else was sent"), std::string::npos) << r.exit.err;
}

TEST_F(LoadProtocol, UsageOfTheWrongTypeFailsItsRequestNotTheRun) {
  // Old builds aborted inside curl's callback on a string count, and turned 1e30 into INT_MIN
  // tokens and -2.5e12 tokens/s.
  for (const char* mode : {"usage_string", "usage_huge"}) {
    const auto r = run(mode, {"--no-trial"});
    expect_all_failed(r, "protocol");
    EXPECT_NE(r.json["errors"][0].get<std::string>().find("usage."), std::string::npos) << r.json["errors"][0];
    EXPECT_GE(r.json["output_throughput"].get<double>(), 0.0);
  }
  const auto whole = run("usage_huge", {"--no-trial", "--no-stream"});
  expect_all_failed(whole, "protocol");
}

TEST_F(LoadProtocol, ANullPromptCountIsUnknownNotAProtocolError) {
  // "prompt_tokens": null in the final usage (the trial request included): every request
  // succeeds, its output count is the server's, its input count the one the client sent.
  for (const bool stream : {true, false}) {
    const auto r = stream ? run("usage_null") : run("usage_null", {"--no-stream"});
    expect_all_ok(r);
    EXPECT_EQ(r.json["total_input_tokens"], kRequests * 16);
    EXPECT_TRUE(r.json["requests"][0]["usage_reported"].get<bool>());
  }
}

TEST_F(LoadProtocol, APlainJsonReplyToAStreamIsReadWholeNotDropped) {
  const auto r = run("json_reply");
  expect_all_ok(r);
  EXPECT_EQ(r.json["errors_dropped"], 0);
  EXPECT_EQ(r.json["unstreamed_replies"], kRequests);
  EXPECT_TRUE(r.json["median_tpot_ms"].is_null()) << "no time per token for a reply read whole";
  EXPECT_FALSE(r.json["requests"][0]["streamed"].get<bool>());
}

TEST_F(LoadProtocol, NonStreaming) {
  const auto r = run("", {"--no-stream"});
  expect_all_ok(r);
  EXPECT_TRUE(r.json["median_tpot_ms"].is_null()) << "no TPOT samples of 0";
  EXPECT_TRUE(r.json["median_itl_ms"].is_null());
  // Never below the server's schedule; above it by whatever a loaded machine adds.
  EXPECT_GE(r.json["median_e2el_ms"].get<double>(), 20.0 + 7 * 5.0 - 0.5);
}

TEST_F(LoadProtocol, ConnectionRefusedIsConnect) {
  testutil::TempDir dir("refused");
  const std::vector<std::string> args{"load",        "--url", "http://127.0.0.1:1", "--model", "m", "-n", "3",
                                      "--input-len", "4",     "--output-len",       "2",       "-q"};
  auto r = run_dcukit(dir, args, "refused", {.deadline = std::chrono::seconds(20)});
  EXPECT_EQ(r.exit.code, 1);
  itest::expect_stopped_with(r, "is the server running at http://127.0.0.1:1");
  EXPECT_NE(r.exit.err.find("is the server running at http://127.0.0.1:1"), std::string::npos) << r.exit.err;
  auto args_no_trial = args;
  args_no_trial.push_back("--no-trial");
  auto all = run_dcukit(dir, args_no_trial, "refused_no_trial", {.deadline = std::chrono::seconds(20)});
  ASSERT_TRUE(all.json.is_object()) << all.exit.err;
  EXPECT_EQ(all.json["errors_connect"], 3);
  // Without --model, the first question (/v1/models) finds the server down, and says so.
  auto down = run_dcukit(dir, {"load", "--url", "http://127.0.0.1:1", "-n", "3", "-q"}, "down",
                         {.deadline = std::chrono::seconds(20)});
  EXPECT_EQ(down.exit.code, 1);
  EXPECT_NE(down.exit.err.find("cannot reach the server"), std::string::npos) << down.exit.err;
  EXPECT_EQ(down.exit.err.find("pass --model"), std::string::npos) << "the server is down: --model would not help";
}

}  // namespace
