// Every input checked, and nothing a user should not see printed: each case of the hardening
// list, run through the real binary. Bad numbers exit 2 before anything is sent; a wrong reply
// becomes an error of its request; a stop is honoured while waiting; credentials never show.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "fixture.h"
#include "no_hang.h"

namespace {

using itest::FakeServer;
using itest::run_dcukit;

class LoadHardening : public itest::ServerSuite<LoadHardening> {
public:
  static constexpr const char* kName = "hardening";
  static std::vector<std::string> flags() { return {"--ttft-ms", "5", "--itl-ms", "1"}; }

protected:
  testutil::TempDir m_dir{"load_hardening"};
  itest::Run run(const std::vector<std::string>& args, const std::string& name, itest::RunOptions o = {}) {
    if (o.deadline == std::chrono::seconds(60)) o.deadline = std::chrono::seconds(20);
    return run_dcukit(m_dir, args, name, o);
  }
  std::vector<std::string> base() const {
    return {"load", "--url", s_server->url(), "-n", "3", "--input-len", "4", "--output-len", "3", "-q"};
  }
  /// Runs base() with --json PATH named here (run() names its own) and waits up to `limit`.
  itest::Exit run_with_json(const std::string& json, const std::string& name, std::chrono::seconds limit) {
    std::vector<std::string> argv{DCUKIT_BINARY};
    const auto args = base();
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--json", json});
    itest::Child child(argv, m_dir.file(name));
    return child.wait(limit);
  }
  /// Runs base() plus extra and expects exit 2 with `says` in the message, nothing written.
  void expect_refused(const std::vector<std::string>& extra, const std::string& says, const std::string& name) {
    const auto args = itest::with(base(), extra);
    const auto start = std::chrono::steady_clock::now();
    auto r = run(args, name);
    EXPECT_EQ(r.exit.code, 2) << name << ": " << r.exit.err;
    EXPECT_NE(r.exit.err.find(says), std::string::npos) << name << ": " << r.exit.err;
    EXPECT_TRUE(r.json.is_null()) << name;
    EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang) << name;
  }
};

TEST_F(LoadHardening, CountsThatWouldWrapOrExhaustMemoryAreRefused) {
  expect_refused({"-n", "-1"}, "-n", "n_minus");
  expect_refused({"--warmup", "-1"}, "--warmup", "warmup_minus");
  expect_refused({"-n", "0"}, "-n", "n_zero");
  expect_refused({"-n", "5000000", "--input-len", "100000"}, "million tokens", "n_huge");
}

TEST_F(LoadHardening, TimeoutsWithoutADeadlineAreRefused) {
  for (const char* t : {"0", "-1", "nan", "1e300", "0.0001", "inf"})
    expect_refused({"--timeout", t}, "--timeout", std::string("timeout_") + (t[0] == '-' ? "neg" : t));
}

TEST_F(LoadHardening, ListsAndRangesAreCheckedAsTheyAreParsed) {
  // -c 0.5 ran at 1 labelled 0, -c 2.9 at 2, -c inf as INT_MIN.
  for (const char* c : {"0.5", "2.9", "inf", "nan", "0", "1,x", "-3"})
    expect_refused({"-c", c}, "-c", std::string("conc_") + c);
  expect_refused({"--max-concurrency", "-5"}, "--max-concurrency", "maxconc");
  expect_refused({"--burstiness", "nan"}, "--burstiness", "burst_nan");
  expect_refused({"--burstiness", "0"}, "--burstiness", "burst_zero");
  expect_refused({"-r", "1e-300"}, "--request-rate", "rate_tiny");
  expect_refused({"-r", "nan"}, "--request-rate", "rate_nan");
  expect_refused({"--threads", "999"}, "--threads", "threads");
  expect_refused({"--input-len", "0"}, "--input-len", "input_zero");
  expect_refused({"--metric-percentiles", "101"}, "--metric-percentiles", "pct");
  expect_refused({"--percentile-metrics", "ttft,bogus"}, "--percentile-metrics", "pct_metric");
  expect_refused({"--slo", "ttft=nan"}, "--slo", "slo_nan");
  expect_refused({"--metadata", "model_id=x"}, "field of the results", "meta_reserved");
  expect_refused({"--metadata", "novalue"}, "KEY=VALUE", "meta_bad");
  expect_refused({"-c", "4", "--max-concurrency", "2"}, "--max-concurrency", "c_and_cap");
  // -r inf stays valid: vLLM's unlimited rate.
  auto args = base();
  args.insert(args.end(), {"-r", "inf"});
  auto r = run(args, "rate_inf");
  EXPECT_EQ(r.exit.code, 0) << r.exit.err;
}

TEST_F(LoadHardening, LateFoundBadInputIsStillExit2) {
  expect_refused({"--dataset", "jsonl", "--dataset-path", m_dir.file("missing.jsonl")}, "--dataset-path", "nofile");
  const std::string bad = m_dir.write("bad.jsonl", "{\"prompt\": \"a b c\", \"output_len\": 1e9}\n");
  expect_refused({"--dataset", "jsonl", "--dataset-path", bad}, "bad.jsonl:1", "badfile");
  auto r = run({"load", "--url", "ftp://127.0.0.1:21", "-n", "2", "-q"}, "ftp");
  EXPECT_EQ(r.exit.code, 2) << r.exit.err;
  EXPECT_NE(r.exit.err.find("http or https"), std::string::npos) << r.exit.err;
  // Text prompts shorter than the chat template: found only when counting, still bad input.
  FakeServer templated({"--template-tokens", "30", "--tokenize", "none"}, "templated");
  auto chat =
      run({"load", "--url", templated.url(), "--endpoint", "/v1/chat/completions", "--input-len", "8", "-n", "2", "-q"},
          "short_chat");
  EXPECT_EQ(chat.exit.code, 2) << chat.exit.err;
  EXPECT_NE(chat.exit.err.find("raise --input-len to at least 31"), std::string::npos) << chat.exit.err;
}

TEST_F(LoadHardening, OutputPathsAreCheckedBeforeAnythingIsSent) {
  // A bad path found after the run threw the whole run away; now it is bad input up front.
  expect_refused({"--csv", m_dir.file("no/such/folder/r.csv")}, "--csv", "csv_nofolder");
  expect_refused({"--csv", m_dir.path()}, "--csv", "csv_folder");
  const std::string missing = m_dir.file("no/such/folder/r.json");
  const auto exit = run_with_json(missing, "json_nofolder", std::chrono::seconds(10));
  EXPECT_EQ(exit.code, 2) << exit.err;
  EXPECT_NE(exit.err.find("--json " + missing), std::string::npos) << exit.err;
  EXPECT_EQ(exit.out.find("dcukit load:"), std::string::npos) << "nothing ran: " << exit.out;
}

TEST_F(LoadHardening, AResultFileIsReplacedWholeOrNotAtAll) {
  // The JSON is written to a temporary file in the same folder and renamed over the old one:
  // after a run the folder holds the new file and nothing else.
  const std::string json = m_dir.file("atomic/r.json");
  std::filesystem::create_directories(m_dir.file("atomic"));
  { std::ofstream(json) << "{\"old\": true}"; }
  const auto exit = run_with_json(json, "atomic_run", std::chrono::seconds(20));
  ASSERT_EQ(exit.code, 0) << exit.err;
  const auto j = nlohmann::json::parse(itest::slurp(json), nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_FALSE(j.contains("old"));
  EXPECT_TRUE(j.contains("run_info"));
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(m_dir.file("atomic"))) ++files;
  EXPECT_EQ(files, 1) << "no temporary file is left behind";
}

TEST_F(LoadHardening, ADuplicateUrlIsRefused) {
  auto args = base();
  args.insert(args.end(), {"--url", "http://127.0.0.1:1"});
  auto r = run(args, "dup_url");
  EXPECT_EQ(r.exit.code, 2) << r.exit.err;
  EXPECT_NE(r.exit.err.find("--url"), std::string::npos) << r.exit.err;
}

TEST_F(LoadHardening, AModelListOfTheWrongShapeIsAMessageNotACrash) {
  FakeServer odd({"--models-body", R"({"object":"list","data":[{"id":5}]})"}, "odd_models");
  auto r = run({"load", "--url", odd.url(), "-n", "2", "-q"}, "odd_models");
  EXPECT_EQ(r.exit.code, 1) << r.exit.err;
  EXPECT_NE(r.exit.err.find("is not a string"), std::string::npos) << r.exit.err;
  EXPECT_NE(r.exit.err.find("pass --model"), std::string::npos) << r.exit.err;
}

TEST_F(LoadHardening, AModelIdWithTerminalEscapesIsPrintedEscaped) {
  FakeServer hostile({"--model", "m\x1b]0;owned\x07\x1b[2J", "--models-body",
                      R"({"object":"list","data":[{"id":"m\u001b]0;owned\u0007\u001b[2J"}]})"},
                     "escape_model");
  auto r = run({"load", "--url", hostile.url(), "-n", "2", "--input-len", "4", "--output-len", "2"}, "escape_model");
  ASSERT_EQ(r.exit.code, 0) << r.exit.err;
  const std::string shown = r.exit.out + r.exit.err;
  EXPECT_EQ(shown.find('\x1b'), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\x07'), std::string::npos) << shown;
  EXPECT_NE(r.exit.out.find("m\\x1b]0;owned\\x07\\x1b[2J"), std::string::npos) << r.exit.out;
  EXPECT_EQ(r.json["model_id"], "m\x1b]0;owned\x07\x1b[2J") << "JSON keeps the id as sent (escaped by JSON)";
}

TEST_F(LoadHardening, CredentialsInTheUrlAreNeverShown) {
  const std::string secret = "pa55w0rd-XYZ";
  const std::string url = "http://alice:" + secret + "@127.0.0.1:" + std::to_string(s_server->port());
  auto r = run({"load", "--url", url, "-n", "2", "--input-len", "4", "--output-len", "2", "-c", "1,2", "--metrics-url",
                url + "/metrics", "--csv", m_dir.file("creds.csv")},
               "creds");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  const std::string all = r.exit.out + r.exit.err + r.json.dump() + itest::slurp(m_dir.file("creds.csv"));
  EXPECT_EQ(all.find(secret), std::string::npos) << all.substr(0, 2000);
  EXPECT_NE(r.json["url"].get<std::string>().find("alice:***@"), std::string::npos) << r.json["url"];
  EXPECT_NE(r.exit.out.find("alice:***@"), std::string::npos) << "the title names the server, redacted";
  // An error message about that URL hides it too.
  const std::string down = "http://alice:" + secret + "@127.0.0.1:1";
  auto d = run({"load", "--url", down, "-n", "2", "-q"}, "creds_down");
  EXPECT_EQ(d.exit.code, 1);
  EXPECT_EQ(d.exit.err.find(secret), std::string::npos) << d.exit.err;
  EXPECT_NE(d.exit.err.find("alice:***@"), std::string::npos) << d.exit.err;
}

TEST_F(LoadHardening, HeadersAndQueryKeysAreRedactedInRunInfo) {
  const std::string url = s_server->url() + "?api_key=QK-4242";
  auto r = run({"load", "--url", url, "-n", "2", "--input-len", "4", "--output-len", "2", "-H",
                "Authorization: Bearer sk-live-0123456789abcdef", "-H", "X-Api-Key: XK-9999"},
               "redact_headers");
  const std::string all = r.exit.out + r.exit.err + r.json.dump();
  for (const char* secret : {"QK-4242", "sk-live-0123456789abcdef", "XK-9999"})
    EXPECT_EQ(all.find(secret), std::string::npos) << secret << " shown:\n" << all.substr(0, 3000);
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  const std::string command = r.json["run_info"]["command"].dump();
  EXPECT_NE(command.find("Authorization: Bearer ***"), std::string::npos) << command;
}

TEST_F(LoadHardening, TheApiKeyGoesToTheMetricsHostOnlyWhenAsked) {
  // This metrics server refuses any request that carries an Authorization header.
  FakeServer metrics({"--metrics-auth-status", "400"}, "metrics_host");
  auto args = base();
  args.insert(args.end(), {"--metrics-url", metrics.url() + "/metrics"});
  auto r = run(args, "key_not_sent", {.env = {"OPENAI_API_KEY=sk-test"}});
  EXPECT_EQ(r.exit.code, 0) << r.exit.err;
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_TRUE(r.json["server_metrics_error"].is_null()) << r.json["server_metrics_error"];
  args.push_back("--metrics-auth");
  auto sent = run(args, "key_sent", {.env = {"OPENAI_API_KEY=sk-test"}});
  EXPECT_EQ(sent.exit.code, 1);
  EXPECT_NE(sent.exit.err.find("--metrics-url"), std::string::npos) << sent.exit.err;
  EXPECT_NE(sent.exit.err.find("HTTP 400"), std::string::npos) << sent.exit.err;
}

TEST_F(LoadHardening, ALineBreakInTheApiKeyIsRefused) {
  for (const char* key : {"sk-1\r\nX-Injected: 1", "sk-1\nX: 2"}) {
    auto r = run(base(), "key_crlf", {.env = {std::string("OPENAI_API_KEY=") + key}});
    EXPECT_EQ(r.exit.code, 2) << r.exit.err;
    EXPECT_NE(r.exit.err.find("line break"), std::string::npos) << r.exit.err;
  }
}

TEST_F(LoadHardening, WaitReadyHonoursCtrlCAndSigterm) {
  FakeServer never({"--ready-after-ms", "600000"}, "never_ready");
  for (const int sig : {SIGINT, SIGTERM}) {
    const std::string base_path = m_dir.file("wait" + std::to_string(sig));
    const long long before = never.count("fake_health_checks_total");
    itest::Child child({DCUKIT_BINARY, "load", "--url", never.url(), "--wait-ready", "300", "-n", "2", "-q"},
                       base_path);
    // Once it has asked /health (it is waiting, its handlers in place): an event, not a time.
    ASSERT_TRUE(never.wait_count("fake_health_checks_total", before + 1)) << child.out();
    const auto start = std::chrono::steady_clock::now();
    child.signal(sig);
    const auto exit = child.wait(testutil::kNoHang);
    EXPECT_FALSE(exit.timed_out) << "a stop must end --wait-ready";
    EXPECT_EQ(exit.code, 130) << exit.err;
    EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  }
}

TEST_F(LoadHardening, WithQuietTheFailureIsStillSaidAndAfterTheTables) {
  auto args = base();
  args.insert(args.end(), {"--no-trial", "-H", "X-Fake-Mode: status=503"});
  auto q = run(args, "quiet_fail");
  EXPECT_EQ(q.exit.code, 1);
  EXPECT_NE(q.exit.err.find("3 of 3 requests failed (http_status 3)"), std::string::npos) << q.exit.err;
  EXPECT_NE(q.exit.err.find("HTTP 503"), std::string::npos) << "with -q there are no tables to point at";
  // Both streams into one file, as `dcukit load ... > log 2>&1`: the failure comes after the tables.
  args.erase(std::find(args.begin(), args.end(), "-q"));
  const std::string base_path = m_dir.file("together");
  std::vector<std::string> argv{DCUKIT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  itest::Child child(argv, base_path, {}, itest::Child::Stderr::with_out);
  const auto exit = child.wait(std::chrono::seconds(20));
  EXPECT_EQ(exit.code, 1);
  const auto tables = exit.out.find("dcukit load: fake-model");
  const auto failure = exit.out.find("requests failed");
  ASSERT_NE(tables, std::string::npos) << exit.out;
  ASSERT_NE(failure, std::string::npos) << exit.out;
  EXPECT_LT(tables, failure) << exit.out;
}

/// Runs dcukit with its stderr on a terminal (a pseudo-terminal) and returns what it showed.
std::string on_a_terminal(const testutil::TempDir& dir, const std::vector<std::string>& args,
                          const std::vector<std::string>& env, const std::vector<std::string>& unset) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return "no pty";
  const int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  std::vector<std::string> argv{DCUKIT_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string seen;
  {
    itest::Child child(argv, dir.file("tty"), env, itest::Child::Stderr::to_fd, slave, unset);
    ::close(slave);
    ::fcntl(master, F_SETFL, O_NONBLOCK);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n > 0) seen.append(buf, static_cast<std::size_t>(n));
      if (n <= 0) {
        if (child.finished() || std::chrono::steady_clock::now() > end) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }
  ::close(master);
  return seen;
}

TEST_F(LoadHardening, ProgressUsesEscapesOnlyWhereTheTerminalTakesThem) {
  const std::vector<std::string> args{
      "load", "--url",  s_server->url(),       "-n", "40", "--input-len", "4", "--output-len",
      "30",   "--json", m_dir.file("tty.json")};
  const std::string plain = on_a_terminal(m_dir, args, {"NO_COLOR=1", "TERM=xterm"}, {});
  EXPECT_NE(plain.find(" of 40 done ("), std::string::npos) << "progress is shown on a terminal: " << plain;
  EXPECT_EQ(plain.find("\033[K"), std::string::npos) << "NO_COLOR";
  const std::string dumb = on_a_terminal(m_dir, args, {"TERM=dumb"}, {"NO_COLOR"});
  EXPECT_EQ(dumb.find("\033[K"), std::string::npos) << "TERM=dumb";
  const std::string colour = on_a_terminal(m_dir, args, {"TERM=xterm"}, {"NO_COLOR"});
  EXPECT_NE(colour.find("\033[K"), std::string::npos) << "a terminal that takes escapes gets them";
}

}  // namespace
