#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "guard/status.h"
#include "serving/prometheus.h"

using namespace dcukit;
using namespace dcukit::guard;

namespace {

double value(const std::vector<serving::Sample>& samples, const std::string& name, const std::string& key = "",
             const std::string& label = "") {
  for (const auto& s : samples)
    if (s.name == name && (key.empty() || s.label(key) == label)) return s.value;
  ADD_FAILURE() << "no sample " << name << " " << key << "=" << label;
  return -999;
}

}  // namespace

TEST(GuardStatus, MetricsCarryEveryNameTheIssueLists) {
  StatusBoard b;
  b.set_state(State::ready);
  b.service_started(123, false);
  b.service_ended({.code = -1, .signal = SIGKILL});
  b.service_started(124, true);
  b.probe_failed(Probe::canary);
  b.probe_failed(Probe::canary);
  b.probe_failed(Probe::health);
  b.canary_latency(0.07);
  b.canary_latency(3.0);
  const std::string text = render_metrics(b.view());
  const auto samples = serving::parse_text(text);
  for (State s : kStates)
    EXPECT_EQ(value(samples, "dcukit_guard_state", "state", std::string(to_string(s))), s == State::ready ? 1 : 0);
  EXPECT_EQ(value(samples, "dcukit_guard_restarts_total"), 1);
  EXPECT_EQ(value(samples, "dcukit_guard_last_exit_code"), 128 + SIGKILL);
  EXPECT_EQ(value(samples, "dcukit_guard_probe_failures_total", "probe", "canary"), 2);
  EXPECT_EQ(value(samples, "dcukit_guard_probe_failures_total", "probe", "health"), 1);
  EXPECT_EQ(value(samples, "dcukit_guard_probe_failures_total", "probe", "tcp"), 0);
  EXPECT_EQ(value(samples, "dcukit_guard_canary_latency_seconds_count"), 2);
  EXPECT_DOUBLE_EQ(value(samples, "dcukit_guard_canary_latency_seconds_sum"), 3.07);
  EXPECT_EQ(value(samples, "dcukit_guard_canary_latency_seconds_bucket", "le", "0.1"), 1);
  EXPECT_EQ(value(samples, "dcukit_guard_canary_latency_seconds_bucket", "le", "5"), 2);
  EXPECT_EQ(value(samples, "dcukit_guard_canary_latency_seconds_bucket", "le", "+Inf"), 2);
  EXPECT_GE(value(samples, "dcukit_guard_uptime_seconds"), 0);
  EXPECT_NE(text.find("# TYPE dcukit_guard_canary_latency_seconds histogram"), std::string::npos);
  EXPECT_NE(text.find("# TYPE dcukit_guard_restarts_total counter"), std::string::npos);
}

TEST(GuardStatus, HealthzSaysWhyAndShowsTheLogTailWhenNotReady) {
  StatusBoard b;
  b.set_log_tail([] { return std::string("fatal: CUDA out of memory\n"); });
  b.set_state(State::failed);
  b.service_ended({.code = 3});
  b.set_reason("crash loop: more than 2 restarts within 1m");
  auto j = nlohmann::json::parse(render_healthz(b.view()));
  EXPECT_EQ(j["state"], "failed");
  EXPECT_EQ(j["ready"], false);
  EXPECT_EQ(j["last_exit"]["code"], 3);
  EXPECT_EQ(j["last_exit"]["describe"], "exit 3");
  EXPECT_EQ(j["log_tail"], "fatal: CUDA out of memory\n");
  EXPECT_NE(j["reason"].get<std::string>().find("crash loop"), std::string::npos);
  b.set_state(State::ready);
  auto ready = nlohmann::json::parse(render_healthz(b.view()));
  EXPECT_EQ(ready["ready"], true);
  EXPECT_FALSE(ready.contains("log_tail"));
}

TEST(GuardStatus, ExitCodeMetricEncodesSignals) {
  EXPECT_EQ(exit_code_metric(std::nullopt), -1);
  EXPECT_EQ(exit_code_metric(util::ExitStatus{.code = 0}), 0);
  EXPECT_EQ(exit_code_metric(util::ExitStatus{.code = -1, .signal = SIGTERM}), 143);
}

TEST(GuardStatus, EveryStateAndProbeHasOneName) {
  for (State s : kStates) EXPECT_EQ(parse_state(to_string(s)), s);
  EXPECT_FALSE(parse_state("sleeping"));
  EXPECT_EQ(to_string(Probe::canary), "canary");
  EXPECT_EQ(to_string(EventKind::restart_scheduled), "restart_scheduled");
}
