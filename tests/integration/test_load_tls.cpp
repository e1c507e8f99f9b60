// dcukit load over https: a server with a self-signed certificate is trusted with --cacert or
// --insecure, and refused otherwise, counted as a connect error, with nothing left hanging.
#include <sys/stat.h>

#include "fixture.h"

namespace {

using itest::run_dcukit;

class LoadTls : public itest::ServerSuite<LoadTls> {
public:
  static constexpr const char* kName = "tls";
  static std::string binary() { return DCUKIT_TLS_SERVER; }
  /// The server writes its certificate into a folder of this suite's own, made here first.
  static std::vector<std::string> flags() {
    s_cert_dir = std::make_unique<testutil::TempDir>("tls");
    s_dir = s_cert_dir->path();
    return {"--dir", s_dir, "--ttft-ms", "20", "--itl-ms", "5"};
  }
  static void TearDownTestSuite() {
    itest::ServerSuite<LoadTls>::TearDownTestSuite();
    s_cert_dir.reset();
  }

protected:
  static std::vector<std::string> args(std::initializer_list<std::string> extra) {
    std::vector<std::string> a{"load",
                               "--url",
                               "https://127.0.0.1:" + std::to_string(s_server->port()),
                               "-n",
                               "4",
                               "-c",
                               "2",
                               "--output-len",
                               "6",
                               "--timeout",
                               "5",
                               "-q"};
    a.insert(a.end(), extra);
    return a;
  }
  static inline std::string s_dir;
  static inline std::unique_ptr<testutil::TempDir> s_cert_dir;
  testutil::TempDir m_dir{"load_tls"};
  itest::Run run(const std::vector<std::string>& a, const std::string& name,
                 std::chrono::milliseconds deadline = std::chrono::seconds(60)) {
    return run_dcukit(m_dir, a, name, {.deadline = deadline});
  }
};

TEST_F(LoadTls, TrustedThroughCacert) {
  ASSERT_GT(s_server->port(), 0);
  auto r = run(args({"--cacert", s_dir + "/cert.pem"}), "tls_cacert");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 0) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 4) << r.json["errors"].dump();
  EXPECT_EQ(r.json["total_output_tokens"], 24);
  EXPECT_EQ(r.json["model_id"], "tls-fake");
  EXPECT_GT(r.json["median_ttft_ms"].get<double>(), 15.0);  // the server's 20 ms, measured over TLS
  EXPECT_GT(r.json["median_itl_ms"].get<double>(), 0.0);  // each chunk timestamped as it comes, not as one batch
}

TEST_F(LoadTls, InsecureSkipsTheCheck) {
  auto r = run(args({"--insecure"}), "tls_insecure");
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.json["completed"], 4) << r.json["errors"].dump();
}

TEST_F(LoadTls, AnUntrustedCertificateIsRefused) {
  // --model skips /v1/models and --no-trial the trial request, so that the refusal happens in
  // the requests themselves.
  auto r = run(args({"--model", "tls-fake", "--no-trial"}), "tls_untrusted", std::chrono::seconds(30));
  ASSERT_TRUE(r.json.is_object()) << r.exit.err;
  EXPECT_EQ(r.exit.code, 1);
  EXPECT_EQ(r.json["completed"], 0);
  EXPECT_EQ(r.json["errors_connect"], 4) << r.json["errors"].dump();
  EXPECT_NE(r.json["errors"][0].get<std::string>().find("certificate"), std::string::npos) << r.json["errors"].dump();
  // Without --model the first call, /v1/models, fails and says so before any load is sent.
  auto first = run(args({}), "tls_untrusted_models", std::chrono::seconds(30));
  EXPECT_EQ(first.exit.code, 1);
  EXPECT_NE(first.exit.err.find("certificate"), std::string::npos) << first.exit.err;
}

TEST_F(LoadTls, AMissingCacertIsBadInput) {
  auto r = run(args({"--cacert", s_dir + "/nope.pem"}), "tls_nocert", std::chrono::seconds(10));
  EXPECT_EQ(r.exit.code, 2);
  EXPECT_NE(r.exit.err.find("--cacert"), std::string::npos) << r.exit.err;
}

}  // namespace
