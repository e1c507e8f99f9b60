// patrol's and the exporter's options come from the same kind of table as guard's: an options
// file (lines or JSON, a list for a repeatable key) read first, the command line over it, and
// errors that name the file, the line or the flag.
#include <gtest/gtest.h>

#include "exporter/settings.h"
#include "patrol/settings.h"
#include "tempdir.h"

using namespace dcukit;
using namespace std::chrono_literals;

TEST(PatrolSettings, TheFileIsReadThenTheCommandLineOverridesIt) {
  testutil::TempDir dir("patrol_settings");
  const std::string conf = dir.write("patrol.conf",
                                     "# NRPE's check, kept in one file\n"
                                     "url = http://127.0.0.1:8000\n"
                                     "probe-timeout = 2s\n"
                                     "limit = temperature=70,80\n"
                                     "limit = busy=95\n"
                                     "header = Authorization: Bearer x\n");
  auto r = patrol::resolve_request({}, conf, {{"probe-timeout", "3s"}, {"expect-devices", "8"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->service.url, "http://127.0.0.1:8000");
  EXPECT_EQ(r->service.probe_timeout, 3s) << "the command line comes after the file";
  EXPECT_EQ(r->service.headers, std::vector<std::string>{"Authorization: Bearer x"});
  EXPECT_EQ(r->expect_devices, 8);
  const auto temp = r->thresholds.limit(patrol::Metric::temperature, std::nullopt);
  ASSERT_TRUE(temp.warn && temp.crit);
  EXPECT_EQ(patrol::judge(75, temp), patrol::State::warning);
  EXPECT_EQ(patrol::judge(85, temp), patrol::State::critical);
  EXPECT_EQ(patrol::judge(96, r->thresholds.limit(patrol::Metric::busy, std::nullopt)), patrol::State::warning);

  const std::string js = dir.write("patrol.json", R"({"pid-file": "/run/vllm.pid", "no-canary": true,
      "limit": ["memory=90", "pcie=off"], "no-devices": "yes"})");
  auto j = patrol::resolve_request({}, js, {});
  ASSERT_TRUE(j.ok()) << j.error().message;
  EXPECT_EQ(j->service.pid_file, "/run/vllm.pid");
  EXPECT_FALSE(j->service.canary);
  EXPECT_FALSE(j->devices);
  EXPECT_FALSE(j->thresholds.pcie()) << "each item of a JSON list is one --limit";
}

TEST(PatrolSettings, ErrorsNameTheFileLineOrFlag) {
  testutil::TempDir dir("patrol_settings_bad");
  const auto error = [](const Result<patrol::Request>& r) { return r.ok() ? std::string("accepted") : r.error().message; };
  EXPECT_NE(error(patrol::resolve_request({}, dir.write("a.conf", "url=http://127.0.0.1:1\nfailures=3\n"), {}))
                .find("a.conf:2: 'failures' is not a patrol option"),
            std::string::npos);
  EXPECT_NE(error(patrol::resolve_request({}, "", {{"probe-timeout", "0s"}})).find("--probe-timeout '0s'"),
            std::string::npos);
  EXPECT_NE(error(patrol::resolve_request({}, "", {{"limit", "heat=80"}})).find("--limit 'heat=80'"),
            std::string::npos);
  EXPECT_NE(error(patrol::resolve_request({}, "", {{"url", "http://[::1"}})).find("--url"), std::string::npos);
  EXPECT_NE(error(patrol::resolve_request({}, "", {{"no-devices", "true"}})).find("nothing to inspect"),
            std::string::npos);
}

TEST(ExporterSettings, TheFileIsReadThenTheCommandLineOverridesItAndValidateRuns) {
  testutil::TempDir dir("exporter_settings");
  const std::string conf = dir.write("exporter.conf", "names=dcgm\ndeadline=3s\nlisten=127.0.0.1:9500\n");
  auto r = exporter::resolve_request({}, conf, {{"listen", "127.0.0.1:0"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->names, exporter::NameSet::dcgm);
  EXPECT_EQ(r->deadline, 3s);
  EXPECT_EQ(r->listen, "127.0.0.1:0");
  auto bad = exporter::resolve_request({}, "", {{"names", "prometheus"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--names 'prometheus': choose dcukit, dcgm or amd"), std::string::npos)
      << bad.error().message;
  auto exposed = exporter::resolve_request({}, "", {{"listen", "0.0.0.0:9402"}});
  ASSERT_FALSE(exposed.ok()) << "validate() runs after the settings: another host's address needs --listen-any";
}
