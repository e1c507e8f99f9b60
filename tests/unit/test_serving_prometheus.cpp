#include <gtest/gtest.h>

#include <cmath>

#include "serving/prometheus.h"

using namespace dcukit::serving;

TEST(ServingPrometheus, ReadsLabelsEscapesAndSpecialValues) {
  const auto s = parse_text(
      "# HELP vllm:num_requests_running Number of requests.\n"
      "# TYPE vllm:num_requests_running gauge\n"
      "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\",engine=\"0\"} 3.0\n"
      "odd{path=\"a\\\"b\\\\c\\nd\", x=\"1,2\"} 7 1700000000000\n"
      "nan_metric NaN\n"
      "up_inf{le=\"+Inf\"} +Inf\n"
      "broken{unterminated=\"x} 1\n"
      "no_value\n"
      "  indented 2\r\n");
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].name, "vllm:num_requests_running");
  EXPECT_EQ(s[0].label("model_name"), "Qwen/Qwen3-8B");
  EXPECT_EQ(s[0].label("engine"), "0");
  EXPECT_DOUBLE_EQ(s[0].value, 3);
  EXPECT_EQ(s[1].label("path"), "a\"b\\c\nd");
  EXPECT_EQ(s[1].label("x"), "1,2");
  EXPECT_DOUBLE_EQ(s[1].value, 7);  // the timestamp is not the value
  EXPECT_TRUE(std::isnan(s[2].value));
  EXPECT_TRUE(std::isinf(s[3].value));
  EXPECT_EQ(s[4].name, "indented");
}

TEST(ServingPrometheus, SumsEachNameOverItsLabelSets) {
  const auto m = sum_by_name(parse_text("a{x=\"1\"} 1\na{x=\"2\"} 2.5\nb 4\n"));
  EXPECT_DOUBLE_EQ(m.at("a"), 3.5);
  EXPECT_DOUBLE_EQ(m.at("b"), 4);
}

TEST(ServingPrometheus, WritesWhatItReadsBack) {
  TextWriter w;
  w.family("dcukit_gpu_temperature_celsius", MetricType::gauge, "Temperature.\nSecond line \\ slash");
  w.sample("dcukit_gpu_temperature_celsius", {{"gpu", "0"}, {"model", "K100 \"AI\"\n"}}, 45.5);
  w.family("dcukit_guard_restarts_total", MetricType::counter, "Restarts.");
  w.sample("dcukit_guard_restarts_total", {}, 3);
  w.family("dcukit_guard_canary_latency_seconds", MetricType::histogram, "Canary latency.");
  w.histogram("dcukit_guard_canary_latency_seconds", {}, {0.1, 1}, {2, 5}, 1.75, 6);
  const std::string text = w.str();
  EXPECT_NE(text.find("# HELP dcukit_gpu_temperature_celsius Temperature.\\nSecond line \\\\ slash\n"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE dcukit_guard_restarts_total counter\ndcukit_guard_restarts_total 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("dcukit_guard_canary_latency_seconds_bucket{le=\"+Inf\"} 6\n"), std::string::npos);
  const auto back = parse_text(text);
  ASSERT_EQ(back.size(), 7u);
  EXPECT_EQ(back[0].label("model"), "K100 \"AI\"\n");
  EXPECT_DOUBLE_EQ(back[0].value, 45.5);
  EXPECT_EQ(back[2].label("le"), "0.1");
  EXPECT_DOUBLE_EQ(back[3].value, 5);
  EXPECT_DOUBLE_EQ(back[5].value, 1.75);
}
