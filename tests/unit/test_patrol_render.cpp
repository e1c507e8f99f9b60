// patrol's output as Nagios reads it: one line, "PATROL STATE - summary | perfdata", the states'
// order, and the same report as JSON.
#include <gtest/gtest.h>

#include "patrol/render.h"
#include "patrol/residue.h"

namespace dcukit::patrol {
namespace {

TEST(PatrolRender, PerfdataFollowsThePluginGuidelines) {
  EXPECT_EQ(perf_text({"gpu0_temperature", 53, "", "83", "88", {}, {}}), "gpu0_temperature=53;83;88");
  EXPECT_EQ(perf_text({"gpu0_memory", 5.3, "%", "95", "99", 0, 100}), "gpu0_memory=5.3%;95;99;0;100");
  EXPECT_EQ(perf_text({"canary", 0.25, "s", "", "30", 0, {}}), "canary=0.25s;;30;0");
  EXPECT_EQ(perf_text({"gpu0_memory", 2, "%", "@0:5", "~:99", 0, 100}), "gpu0_memory=2%;@0:5;~:99;0;100");
  EXPECT_EQ(perf_text({"device processes", 2, "", {}, {}, {}, {}}), "'device processes'=2");
}

TEST(PatrolRender, WorstStateWins) {
  EXPECT_EQ(worse(State::ok, State::unknown), State::unknown);
  EXPECT_EQ(worse(State::unknown, State::warning), State::warning);
  EXPECT_EQ(worse(State::critical, State::warning), State::critical);
  Report r;
  add(r, {"gpu0", "temperature", State::ok, "53 C"});
  add(r, {"service", "canary", State::warning, "canary took 900 ms (warning above 500 ms)"});
  add(r, {"gpu1", "ecc-uncorrected", State::critical, "2 uncorrected ECC errors (critical at 1)"});
  EXPECT_EQ(r.state, State::critical);
  r.perfdata.push_back({"gpu0_temperature", 53, "", "83", "~:88", {}, {}});
  const std::string line = render_nagios(r, false);
  EXPECT_EQ(line,
            "PATROL CRITICAL - gpu1 ecc-uncorrected 2 uncorrected ECC errors (critical at 1); service canary canary "
            "took 900 ms (warning above 500 ms) | gpu0_temperature=53;83;~:88\n");
  const std::string verbose = render_nagios(r, true);
  EXPECT_NE(verbose.find("\ngpu0 temperature OK: 53 C\n"), std::string::npos) << verbose;
  const auto j = to_json(r);
  EXPECT_EQ(j["state"], "CRITICAL");
  EXPECT_EQ(j["exit_code"], 2);
  EXPECT_EQ(j["findings"].size(), 3u);
  EXPECT_EQ(j["perfdata"][0]["crit"], "~:88");  // a Nagios range, as given
  EXPECT_TRUE(j["perfdata"][0]["min"].is_null());
}

TEST(PatrolRender, AnOkSummaryCountsTheChecks) {
  Report r;
  r.devices = 2;
  add(r, {"gpu0", "temperature", State::ok, "53 C"});
  add(r, {"service", "health", State::ok, "/health answered 200"});
  EXPECT_EQ(render_nagios(r, false), "PATROL OK - 2 devices within limits, service healthy; 2 checks OK\n");
}

TEST(PatrolRender, APipeInAMessageDoesNotStartThePerfdata) {
  Report r;
  add(r, {"service", "models", State::critical, "reply was a|b"});
  EXPECT_EQ(render_nagios(r, false), "PATROL CRITICAL - service models reply was a/b\n");
}

TEST(PatrolResidue, MemoryInUseWithNoProcessListed) {
  telemetry::DeviceState busy, left, unknown;
  busy.index = 0;
  busy.memory_used_bytes = 40ull << 30;
  busy.processes = std::vector<telemetry::ProcessUse>{{123, "python", 40ull << 30}};
  left.index = 1;
  left.memory_used_bytes = 12ull << 30;
  left.processes = std::vector<telemetry::ProcessUse>{};
  unknown.index = 2;
  unknown.memory_used_bytes = 12ull << 30;  // the source cannot list processes: not judged from a capture
  Report r;
  ResidueOptions o;
  o.live = false;
  check_residue({busy, left, unknown}, Thresholds{}, o, r);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].subject, "gpu1");
  EXPECT_EQ(r.findings[0].state, State::warning);
  EXPECT_NE(r.findings[0].message.find("12288 MiB in use and no process"), std::string::npos);
}

}  // namespace
}  // namespace dcukit::patrol
