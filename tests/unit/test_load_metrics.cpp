#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "load/schedule.h"
#include "load/prom.h"
#include "load/result.h"
#include "serving/prometheus.h"

using namespace dcukit::load;

namespace {

RequestRecord stream(double sched, double sent, double first, double itl, int chunks, int tokens) {
  RequestRecord r;
  r.scheduled_ms = sched;
  r.sent_ms = sent;
  for (int i = 0; i < chunks; ++i) {
    r.chunk_ms.push_back(first + i * itl);
    r.chunk_bytes.push_back(4);
  }
  r.first_token_ms = first;
  r.last_token_ms = r.chunk_ms.back();
  r.done_ms = r.last_token_ms + 1;
  r.output_tokens = tokens;
  r.input_tokens = 10;
  r.usage_reported = true;
  return r;
}

}  // namespace

TEST(LoadMetrics, TtftTpotItlE2eAndLag) {
  RunRecords recs;
  recs.requests.push_back(stream(0, 2, 52, 10, 11, 11));  // lag 2, ttft 50, tpot 10
  recs.duration_ms = 1000;
  const LevelResult l = summarize_level(recs, Slo{});
  EXPECT_EQ(l.completed, 1u);
  EXPECT_DOUBLE_EQ(l.lat.ttft.median, 50);
  EXPECT_DOUBLE_EQ(l.lat.ttft_sched.median, 52);
  EXPECT_DOUBLE_EQ(l.lat.send_lag.median, 2);
  EXPECT_DOUBLE_EQ(l.lat.tpot.median, 10);
  EXPECT_DOUBLE_EQ(l.lat.itl.median, 10);
  EXPECT_DOUBLE_EQ(l.lat.e2el.median, 150);
  EXPECT_DOUBLE_EQ(l.request_throughput, 1);
  EXPECT_DOUBLE_EQ(l.output_throughput, 11);
  EXPECT_FALSE(l.request_goodput.has_value());
}

TEST(LoadMetrics, PerTokenItlSpreadsMultiTokenChunks) {
  RequestRecord r = stream(0, 0, 10, 9, 4, 12);  // 4 chunks of 3 tokens, 9 ms apart
  const auto k = tokens_per_chunk(r);
  EXPECT_EQ(k, (std::vector<int>{3, 3, 3, 3}));
  RunRecords recs;
  recs.requests.push_back(r);
  recs.duration_ms = 100;
  const LevelResult l = summarize_level(recs, Slo{});
  EXPECT_DOUBLE_EQ(l.lat.itl.median, 9);
  EXPECT_DOUBLE_EQ(l.lat.itl_token.median, 3);
}

TEST(LoadMetrics, ServerTokenCountsReplaceTheByteEstimate) {
  RequestRecord r = stream(0, 0, 10, 9, 3, 9);  // 3 chunks, 9 tokens
  r.chunk_bytes = {60, 3, 3};                   // bytes say the first chunk holds most
  EXPECT_EQ(tokens_per_chunk(r), (std::vector<int>{7, 1, 1}));
  r.chunk_tokens = {1, 4, 4};  // the server says otherwise
  EXPECT_EQ(tokens_per_chunk(r), (std::vector<int>{1, 4, 4}));
  r.chunk_tokens = {1, 4};  // not one count a chunk: back to the estimate
  EXPECT_EQ(tokens_per_chunk(r), (std::vector<int>{7, 1, 1}));
}

TEST(LoadMetrics, GoodputAndErrorsByClass) {
  RunRecords recs;
  recs.requests.push_back(stream(0, 0, 100, 10, 5, 5));  // ttft 100
  recs.requests.push_back(stream(0, 0, 300, 10, 5, 5));  // ttft 300: misses the SLO
  RequestRecord bad;
  bad.error = ErrorClass::http_status;
  bad.http_status = 503;
  recs.requests.push_back(bad);
  recs.duration_ms = 2000;
  Slo slo;
  slo.ttft_ms = 200;
  const LevelResult l = summarize_level(recs, slo);
  EXPECT_EQ(l.completed, 2u);
  EXPECT_EQ(l.failed, 1u);
  EXPECT_EQ(l.errors_by_class.at("http_status"), 1u);
  EXPECT_EQ(l.http_status_counts.at(503), 1u);
  ASSERT_TRUE(l.request_goodput.has_value());
  EXPECT_DOUBLE_EQ(*l.request_goodput, 0.5);
}

TEST(LoadSchedule, GammaGapsHaveTheRequestedRate) {
  const auto t = schedule_times(20001, 50.0, 1.0, 42);
  EXPECT_EQ(t.front(), 0.0);
  EXPECT_NEAR(t.back() / 20000.0, 1.0 / 50.0, 0.001);
  const auto bursty = schedule_times(5, std::numeric_limits<double>::infinity(), 1.0, 1);
  EXPECT_EQ(bursty.back(), 0.0);
}

TEST(LoadProm, SumsLabelSetsAndTakesDeltas) {
  const auto before = dcukit::serving::sum_by_name(dcukit::serving::parse_text(
      "# HELP x\nvllm:prompt_tokens_total{model_name=\"a\"} 10\n"
      "vllm:prompt_tokens_total{model_name=\"b\"} 5.0\nvllm:kv_cache_usage_perc 0.25\n"));
  EXPECT_DOUBLE_EQ(before.at("vllm:prompt_tokens_total"), 15);
  const auto after = dcukit::serving::sum_by_name(dcukit::serving::parse_text(
      "vllm:prompt_tokens_total{model_name=\"a\"} 40\nvllm:gpu_prefix_cache_hits_total 3\n"
      "vllm:kv_cache_usage_perc 0.5\n"));
  const ServerDelta d = server_delta(before, after);
  EXPECT_DOUBLE_EQ(d.prompt_tokens, 25);
  EXPECT_DOUBLE_EQ(d.prefix_cache_hits, 3);
  EXPECT_DOUBLE_EQ(d.kv_cache_usage_peak, 0.5);
  EXPECT_FALSE(d.missing.empty());  // generation tokens were absent
}
