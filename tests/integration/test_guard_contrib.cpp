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

// Both units run the binary where the packages install it, pass `systemd-analyze verify`, and
// rate "OK" (exposure under 4.0) in `systemd-analyze security`.
class SystemdUnit : public ::testing::TestWithParam<const char*> {};

TEST_P(SystemdUnit, VerifiesAndIsSandboxed) {
  auto analyze = util::find_program("systemd-analyze");
  if (!analyze) GTEST_SKIP() << "systemd-analyze is not installed (Debian: apt install systemd); skipping";
  auto unit = util::read_file(contrib(std::string("systemd/") + GetParam()));
  ASSERT_TRUE(unit) << unit.error().message;
  EXPECT_NE(unit->find("ExecStart=/usr/bin/dcukit "), std::string::npos) << "the packages install /usr/bin/dcukit";
  EXPECT_EQ(unit->find("/usr/local/"), std::string::npos);
  // verify checks that ExecStart's program exists: point it at the binary just built. The man
  // page that Documentation= names is checked where it is installed (scripts/package.sh).
  testutil::TempDir dir("guard_unit");
  const std::string path =
      dir.write(GetParam(), std::regex_replace(*unit, std::regex("/usr/bin/dcukit"), DCUKIT_BINARY));
  auto r = util::run_capture({*analyze, "verify", "--man=no", path}, 60s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0) << r->out << r->err;
  EXPECT_EQ((r->out + r->err).find(GetParam()), std::string::npos) << r->out << r->err;
  auto sec = util::run_capture({*analyze, "security", "--offline=true", "--threshold=39", path}, 60s);
  ASSERT_TRUE(sec);
  EXPECT_EQ(sec->status.code, 0) << "exposure above 3.9:\n" << sec->out << sec->err;
  EXPECT_TRUE(std::regex_search(sec->out, std::regex("Overall exposure level for [^:]+: [0-3]\\.[0-9] (OK|SAFE)")))
      << sec->out;
}

INSTANTIATE_TEST_SUITE_P(GuardContrib, SystemdUnit,
                         ::testing::Values("dcukit-guard.service", "dcukit-exporter.service"),
                         [](const auto& info) { return std::string(info.param).substr(7, 5) == "guard" ? "guard" : "exporter"; });

// A unit that drops its sandbox fails the same check: the check can fail.
TEST(GuardContrib, AnUnsandboxedUnitFailsTheSecurityCheck) {
  auto analyze = util::find_program("systemd-analyze");
  if (!analyze) GTEST_SKIP() << "systemd-analyze is not installed; skipping";
  testutil::TempDir dir("guard_unit_bare");
  const std::string path = dir.write("bare.service", std::string("[Service]\nExecStart=") + DCUKIT_BINARY + " exporter\n");
  auto sec = util::run_capture({*analyze, "security", "--offline=true", "--threshold=39", path}, 60s);
  ASSERT_TRUE(sec);
  EXPECT_NE(sec->status.code, 0) << sec->out;
}

TEST(GuardContrib, TheAlertRulesPassPromtool) {
  auto promtool = util::find_program("promtool");
  if (!promtool) GTEST_SKIP() << "promtool is not installed (Debian: apt install prometheus); skipping";
  auto r = util::run_capture({*promtool, "check", "rules", contrib("prometheus/alerts.yml")}, 60s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0) << r->out << r->err;
  EXPECT_NE(r->out.find("SUCCESS"), std::string::npos) << r->out;
}

TEST(GuardContrib, TheFleetsScrapeConfigurationPassesPromtool) {
  auto promtool = util::find_program("promtool");
  if (!promtool) GTEST_SKIP() << "promtool is not installed (Debian: apt install prometheus); skipping";
  auto r = util::run_capture({*promtool, "check", "config", contrib("prometheus/prometheus-fleet.yml")}, 60s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status.code, 0) << r->out << r->err;
  EXPECT_NE(r->out.find("is valid prometheus config file syntax"), std::string::npos) << r->out;
  EXPECT_NE(r->out.find("SUCCESS: 1 rule files found"), std::string::npos) << "alerts.yml beside it: " << r->out;
}

TEST(GuardContrib, ThePodsProbesAskGuardsHealthz) {
  auto pod = util::read_file(contrib("kubernetes/dcukit-guard-pod.yaml"));
  ASSERT_TRUE(pod) << pod.error().message;
  for (const char* probe : {"startupProbe:", "readinessProbe:", "livenessProbe:"}) {
    const auto at = pod->find(std::string("\n      ") + probe);  // the container's key, not the comment
    ASSERT_NE(at, std::string::npos) << probe;
    const std::string probe_text = pod->substr(at, 80);
    EXPECT_TRUE(probe_text.find("path: /healthz,") != std::string::npos ||
                probe_text.find("path: \"/healthz?live\"") != std::string::npos)  // '?' quoted: YAML's flow mappings
        << probe_text;
  }
}
