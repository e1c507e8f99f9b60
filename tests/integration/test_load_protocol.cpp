// Each case of the protocol list, once: the fake server misbehaves (X-Fake-Mode), the
// real dcukit binary runs to the end, and the misbehaviour lands in the right place.
#include "fixture.h"

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
                                  "--timeout",
                                  "2",
                                  "-q"};
    if (!modes.empty()) {
      args.push_back("-H");
      args.push_back("X-Fake-Mode: " + modes);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    std::string name = modes + endpoint;
    for (char& ch : name)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    auto r = run_dcukit(args, name, std::chrono::seconds(30));
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

  /// The server waits 20 ms before the first token: a measured TTFT is never below it, and is
  /// above it only by the machine's own delays (generous, for a loaded 2-core CI machine).
  static void expect_ttft_near_20(const itest::Run& r) {
    EXPECT_GE(r.json["median_ttft_ms"].get<double>(), 19.5);
    EXPECT_LT(r.json["median_ttft_ms"].get<double>(), 45.0);
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
  expect_ttft_near_20(r);
  EXPECT_NEAR(r.json["median_itl_ms"].get<double>(), 5.0, 1.0);
  EXPECT_NEAR(r.json["median_tpot_ms"].get<double>(), 5.0, 1.0);
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
  expect_ttft_near_20(r);
}

TEST_F(LoadProtocol, SeveralTokensPerChunk) {
  const auto r = run("multi");
  expect_all_ok(r);
  EXPECT_EQ(r.json["requests"][0]["chunks"], 3);  // 8 tokens, 3 a chunk
  EXPECT_EQ(r.json["requests"][0]["chunk_tokens"], nlohmann::json::array({3, 3, 2}));
  // Each gap is shared by the 2 or 3 tokens its chunk brought.
  EXPECT_LT(r.json["median_itl_token_ms"].get<double>(), r.json["median_itl_ms"].get<double>());
  EXPECT_GE(r.json["median_itl_ms"].get<double>(), 2.0);
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
  expect_all_failed(run("error"), "stream_error");
}
TEST_F(LoadProtocol, ConnectionDroppedBeforeDone) {
  expect_all_failed(run("drop"), "dropped");
}
TEST_F(LoadProtocol, StreamThatNeverEndsHitsTheDeadline) {
  expect_all_failed(run("hang", {"--timeout", "0.5"}), "timeout");
}
TEST_F(LoadProtocol, MalformedJsonIsProtocol) {
  expect_all_failed(run("badjson"), "protocol");
}

TEST_F(LoadProtocol, HttpStatusesAreCountedByCode) {
  const auto r = run("status=503");
  expect_all_failed(r, "http_status");
  EXPECT_EQ(r.json["http_status_counts"]["503"], kRequests);
  const auto r2 = run("status=429");
  expect_all_failed(r2, "http_status");
  EXPECT_EQ(r2.json["http_status_counts"]["429"], kRequests);
}

TEST_F(LoadProtocol, NonStreaming) {
  const auto r = run("", {"--no-stream"});
  expect_all_ok(r);
  // Never below the server's schedule; above it only by what a loaded machine adds.
  EXPECT_GE(r.json["median_e2el_ms"].get<double>(), 20.0 + 7 * 5.0 - 0.5);
  EXPECT_LT(r.json["median_e2el_ms"].get<double>(), 20.0 + 7 * 5.0 + 30.0);
}

TEST_F(LoadProtocol, ConnectionRefusedIsConnect) {
  auto r = run_dcukit(
      {"load", "--url", "http://127.0.0.1:1", "--model", "m", "-n", "3", "--input-len", "4", "--output-len", "2", "-q"},
      "refused", std::chrono::seconds(20));
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["errors_connect"], 3);
}

}  // namespace
