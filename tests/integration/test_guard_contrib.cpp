// The files in contrib/ pass their own tools' checks: systemd-analyze verify for the unit,
// promtool check rules for the alert rules; the pod spec's probes point at guard's /healthz.
#include <gtest/gtest.h>

#include <regex>

#include "tempdir.h"
#include "util/files.h"
#include "util/process.h"

using namespace dcukit;
using namespace std::chrono_literals;

namespace {

std::string contrib(const std::string& path) {
  return std::string(DCUKIT_SOURCE_DIR) + "/contrib/" + path;
}

}  // namespace

TEST(GuardContrib, TheSystemdUnitVerifies) {
  auto analyze = util::find_program("systemd-analyze");
  if (!analyze) GTEST_SKIP() << "systemd-analyze is not installed; skipping";
  auto unit = util::read_file(contrib("systemd/dcukit-guard.service"));
  ASSERT_TRUE(unit) << unit.error().message;
  EXPECT_NE(unit->find("Type=notify"), std::string::npos);
  EXPECT_NE(unit->find("KillMode=mixed"), std::string::npos);
  EXPECT_NE(unit->find("ExecReload=/bin/kill -HUP $MAINPID"), std::string::npos);
  // verify checks that ExecStart's program exists: point it at the binary just built.
  testutil::TempDir dir("guard_unit");
  const std::string path =
      dir.write("dcukit-guard.service", std::regex_replace(*unit, std::regex("/usr/local/bin/dcukit"), DCUKIT_BINARY));
  auto r = util::run_capture({*analyze, "verify", path}, 60s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0) << r->out << r->err;
  EXPECT_EQ((r->out + r->err).find("dcukit-guard.service"), std::string::npos) << r->out << r->err;
}

TEST(GuardContrib, TheAlertRulesPassPromtool) {
  auto promtool = util::find_program("promtool");
  if (!promtool) GTEST_SKIP() << "promtool is not installed (Debian: apt install prometheus); skipping";
  auto r = util::run_capture({*promtool, "check", "rules", contrib("prometheus/alerts.yml")}, 60s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0) << r->out << r->err;
  EXPECT_NE(r->out.find("SUCCESS"), std::string::npos) << r->out;
}

TEST(GuardContrib, ThePodsProbesAskGuardsHealthz) {
  auto pod = util::read_file(contrib("kubernetes/dcukit-guard-pod.yaml"));
  ASSERT_TRUE(pod) << pod.error().message;
  for (const char* probe : {"startupProbe:", "readinessProbe:", "livenessProbe:"}) {
    const auto at = pod->find(std::string("\n      ") + probe);  // the container's key, not the comment
    ASSERT_NE(at, std::string::npos) << probe;
    EXPECT_NE(pod->substr(at, 80).find("path: /healthz"), std::string::npos) << probe;
  }
}
