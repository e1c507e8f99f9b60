// dcukit load with its streams spread over several event-loop threads (--threads): every
// request is sent once, the concurrency and the open-loop schedule are those of one loop, and
// Ctrl-C or SIGTERM stops every loop, files the requests in flight as cancelled (not timed out)
// and keeps what was measured.
#include <signal.h>
#include <sys/resource.h>

#include <set>

#include "fixture.h"
#include "no_hang.h"

namespace {

using itest::FakeServer;
using itest::run_dcukit;

class LoadShards : public itest::ServerSuite<LoadShards> {
public:
  static constexpr const char* kName = "shards";
  static std::vector<std::string> flags() { return {"--ttft-ms", "20", "--itl-ms", "2"}; }

protected:
  static std::vector<std::string> base(int n) {
    return {"load",        "--url", s_server->url(), "-n", std::to_string(n),
            "--input-len", "8",     "--output-len",  "4",  "--timeout",
            "5",           "-q"};
  }
  testutil::TempDir m_dir{"load_shards"};
  itest::Run run(const std::vector<std::string>& args, const std::string& name,
                 std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
    return run_dcukit(m_dir, args, name, {.deadline = deadline});
  }
};

TEST_F(LoadShards, ClosedLoopSendsEveryRequestOnceAtTheWholeConcurrency) {
  auto args = base(40);
  args.insert(args.end(), {"-c", "8", "--threads", "4"});
  auto r = run(args, "closed4");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 0) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 40);
  std::set<std::size_t> seen;
  double last = -1;
  for (const auto& q : r.json["requests"]) {
    seen.insert(q["index"].get<std::size_t>());
    EXPECT_TRUE(q["ok"].get<bool>()) << q.dump();
    EXPECT_GE(q["sent_ms"].get<double>(), 0.0);  // one start time for every loop
    last = std::max(last, q["done_ms"].get<double>());
  }
  EXPECT_EQ(r.json["client_event_loops"], 4);
  EXPECT_EQ(seen.size(), 40u);
  EXPECT_EQ(*seen.rbegin(), 39u);
  // Four loops of two streams each: more in flight than one loop holds, never more than -c.
  EXPECT_GT(r.json["max_concurrent_requests"].get<int>(), 2);
  EXPECT_LE(r.json["max_concurrent_requests"].get<int>(), 8);
  EXPECT_NEAR(r.json["duration"].get<double>() * 1000.0, last, 1.0);
}

TEST_F(LoadShards, OpenLoopKeepsTheOneScheduleWhateverTheThreads) {
  std::vector<nlohmann::json> runs;
  for (const char* threads : {"1", "3"}) {
    auto args = base(30);
    args.insert(args.end(), {"--request-rate", "200", "--seed", "11", "--threads", threads});
    auto r = run(args, std::string("open") + threads);
    ASSERT_TRUE(r.json.is_object()) << r.exit.err;
    EXPECT_EQ(r.json["completed"], 30);
    itest::expect_times_consistent(r.json);
    runs.push_back(r.json);
  }
  ASSERT_EQ(runs[0]["requests"].size(), 30u);
  ASSERT_EQ(runs[1]["requests"].size(), 30u);
  for (std::size_t i = 0; i < 30; ++i) {
    const auto& a = runs[0]["requests"][i];
    const auto& b = runs[1]["requests"][i];
    EXPECT_EQ(a["index"], b["index"]);
    EXPECT_NEAR(a["scheduled_ms"].get<double>(), b["scheduled_ms"].get<double>(), 1e-3) << "request " << i;
  }
  EXPECT_GT(runs[1]["requests"][29]["scheduled_ms"].get<double>(), 50.0);  // 30 at 200/s: about 150 ms
}

TEST_F(LoadShards, OpenLoopCapIsSharedOut) {
  auto args = base(24);
  args.insert(args.end(), {"--request-rate", "inf", "--max-concurrency", "6", "--threads", "3"});
  auto r = run(args, "opencap");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 24);
  EXPECT_LE(r.json["max_concurrent_requests"].get<int>(), 6);
  EXPECT_GT(r.json["max_concurrent_requests"].get<int>(), 2);
}

TEST_F(LoadShards, DurationBoundsEveryLoop) {
  auto r = run({"load", "--url", s_server->url(), "--duration", "0.5", "-c", "4", "--threads", "2", "--input-len", "4",
                "--output-len", "4", "-q"},
               "duration2");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_GT(r.json["completed"].get<int>(), 0);
  itest::expect_issued_within(r.json, 0.5);
}

TEST_F(LoadShards, InterruptStopsEveryLoopAndKeepsWhatWasMeasured) {
  for (const int sig : {SIGINT, SIGTERM}) {  // Ctrl-C; a supervisor's or `timeout`'s stop
    const std::string base_path = m_dir.file("interrupt" + std::to_string(sig));
    const long long before = s_server->count("fake_requests_total");
    ASSERT_GE(before, 0) << "the fake server's /metrics did not answer";
    const std::string json_path = base_path + ".json";
    // 2,000 tokens at 2 ms: each request streams for 4 s, far past the signal.
    itest::Child child(
        {DCUKIT_BINARY, "load",           "--url", s_server->url(), "-n",   "100",       "-c", "6",  "--threads",
         "3",           "--input-len",    "4",     "--output-len",  "2000", "--timeout", "30", "-q", "--json",
         json_path,     "--save-detailed"},
        base_path);
    ASSERT_TRUE(child.started());
    // The signal comes once the trial request and all six have reached the server (an event, whatever the machine's
    // speed), counted from what the suite's shared server had served before.
    ASSERT_TRUE(s_server->wait_count("fake_requests_total", before + 1 + 6)) << child.out();  // the trial, then six
    child.signal(sig);
    const auto exit = child.wait(testutil::kNoHang);
    EXPECT_FALSE(exit.timed_out);
    EXPECT_EQ(exit.code, 130) << exit.err;
    const auto file = nlohmann::json::parse(itest::slurp(json_path), nullptr, false);
    ASSERT_TRUE(file.is_object()) << exit.err;
    ASSERT_EQ(file["runs"].size(), 1u) << exit.err;
    EXPECT_TRUE(file["interrupted"].get<bool>());
    const auto& j = file["runs"][0];  // the one level
    EXPECT_EQ(j["requests"].size(), 6u);  // the six in flight, none dropped from the record
    EXPECT_EQ(j["errors_cancelled"], 6) << "cut off by the user, not by --timeout";
    EXPECT_EQ(j["errors_timeout"], 0);
    EXPECT_TRUE(j["cancelled"].get<bool>());
    for (const auto& q : j["requests"]) EXPECT_EQ(q["error_class"], "cancelled");
  }
}

TEST_F(LoadShards, TooFewOpenFilesIsSaidBeforeSending) {
  // ctest runs each test in its own process, so lowering this process's hard limit (which the
  // dcukit child inherits) touches no other test.
  rlimit lim{256, 256};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
  auto r =
      run({"load", "--url", s_server->url(), "-n", "2000", "-c", "1000", "--input-len", "4", "--output-len", "4", "-q"},
          "nofile", std::chrono::seconds(20));
  EXPECT_EQ(r.exit.code, 1);
  itest::expect_stopped_with(r, "1000 concurrent streams need about 1064 open files");
  EXPECT_NE(r.exit.err.find("1000 concurrent streams need about 1064 open files"), std::string::npos) << r.exit.err;
  EXPECT_NE(r.exit.err.find("ulimit -n"), std::string::npos) << r.exit.err;
  // -c 1000 with -n 10 has at most 10 in flight: it fits and runs.
  auto few = run({"load", "--url", s_server->url(), "-n", "10", "-c", "1000", "--input-len", "4", "--output-len", "4",
                  "-q"},
                 "nofile_few", std::chrono::seconds(20));
  ASSERT_TRUE(few.json.is_object()) << few.exit.err;
  EXPECT_EQ(few.json["completed"], 10);
  // Within the hard limit, dcukit raises the soft one itself.
  lim = {64, 256};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
  auto ok =
      run({"load", "--url", s_server->url(), "-n", "150", "-c", "150", "--input-len", "4", "--output-len", "4", "-q"},
          "nofile_raised", std::chrono::seconds(30));
  ASSERT_TRUE(ok.json.is_object()) << ok.exit.err;
  EXPECT_EQ(ok.json["completed"], 150) << ok.json["errors"][0];
}

}  // namespace
