#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "load/metrics.h"
#include "load/types.h"
#include "load/schedule.h"
#include "load/server_metrics.h"
#include "serving/prometheus.h"

using namespace dcukit::load;

namespace {

const std::vector<double> kPercentiles{50, 99};

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
  const LevelReport l = summarize_level(recs, Slo{}, kPercentiles);
  EXPECT_EQ(l.completed, 1u);
  EXPECT_DOUBLE_EQ(l.lat.ttft.summary.median, 50);
  EXPECT_DOUBLE_EQ(l.lat.ttft_sched.summary.median, 52);
  EXPECT_DOUBLE_EQ(l.lat.send_lag.summary.median, 2);
  EXPECT_DOUBLE_EQ(l.lat.tpot.summary.median, 10);
  EXPECT_DOUBLE_EQ(l.lat.itl.summary.median, 10);
  EXPECT_DOUBLE_EQ(l.lat.e2el.summary.median, 150);
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
  const LevelReport l = summarize_level(recs, Slo{}, kPercentiles);
  EXPECT_DOUBLE_EQ(l.lat.itl.summary.median, 9);
  EXPECT_DOUBLE_EQ(l.lat.itl_token.summary.median, 3);
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
  const LevelReport l = summarize_level(recs, slo, kPercentiles);
  EXPECT_EQ(l.completed, 2u);
  EXPECT_EQ(l.failed, 1u);
  EXPECT_EQ(l.errors_by_class.at(ErrorClass::http_status), 1u);
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

dcukit::serving::Scrapes scrapes(const char* before, const char* after) {
  dcukit::serving::Scrapes s;
  s.before = dcukit::serving::sum_by_name(dcukit::serving::parse_text(before));
  s.after = dcukit::serving::sum_by_name(dcukit::serving::parse_text(after));
  s.scrapes = 2;
  return s;
}

TEST(LoadServerMetrics, VllmSumsLabelSetsAndTakesDeltas) {
  const auto s = scrapes(
      "# HELP x\nvllm:prompt_tokens_total{model_name=\"a\"} 10\n"
      "vllm:prompt_tokens_total{model_name=\"b\"} 5.0\nvllm:kv_cache_usage_perc 0.25\n",
      "vllm:prompt_tokens_total{model_name=\"a\"} 40\nvllm:gpu_prefix_cache_hits_total 3\n"
      "vllm:kv_cache_usage_perc 0.5\n");
  const ServerDelta d = server_delta(s);
  EXPECT_EQ(d.dialect, "vllm");
  EXPECT_EQ(d.prompt_tokens, 25);
  EXPECT_EQ(d.prefix_cache_hits, 3);
  EXPECT_EQ(d.kv_cache_usage_peak, 0.5);
  EXPECT_FALSE(d.generation_tokens.has_value()) << "absent, not 0";
  EXPECT_NE(std::find(d.missing.begin(), d.missing.end(), "generation_tokens"), d.missing.end());
}

TEST(LoadServerMetrics, EachDialectAndWhatItLacksIsAbsentNotZero) {
  const ServerDelta sg = server_delta(
      scrapes("sglang:prompt_tokens_total 10\nsglang:generation_tokens_total 4\nsglang:token_usage 0.1\n",
              "sglang:prompt_tokens_total 30\nsglang:generation_tokens_total 14\nsglang:cached_tokens_total 6\n"
              "sglang:num_retracted_requests_total 2\nsglang:token_usage 0.7\n"));
  EXPECT_EQ(sg.dialect, "sglang");
  EXPECT_EQ(sg.prompt_tokens, 20);
  EXPECT_EQ(sg.generation_tokens, 10);
  EXPECT_EQ(sg.preemptions, 2);
  EXPECT_EQ(sg.prefix_cache_hits, 6);
  EXPECT_EQ(sg.kv_cache_usage_peak, 0.7);

  const ServerDelta ll = server_delta(scrapes("llamacpp:prompt_tokens_total 5\nllamacpp:tokens_predicted_total 1\n",
                                              "llamacpp:prompt_tokens_total 50\nllamacpp:tokens_predicted_total 9\n"));
  EXPECT_EQ(ll.dialect, "llamacpp");
  EXPECT_EQ(ll.prompt_tokens, 45);
  EXPECT_EQ(ll.generation_tokens, 8);
  EXPECT_FALSE(ll.preemptions.has_value());
  EXPECT_FALSE(ll.kv_cache_usage_peak.has_value());
  EXPECT_FALSE(ll.prefix_cache_hits.has_value());

  const ServerDelta tgi = server_delta(
      scrapes("tgi_request_input_length_sum 100\ntgi_request_generated_tokens_sum 10\n",
              "tgi_request_input_length_sum 160\ntgi_request_generated_tokens_sum 30\ntgi_queue_size 0\n"));
  EXPECT_EQ(tgi.dialect, "tgi");
  EXPECT_EQ(tgi.prompt_tokens, 60);
  EXPECT_EQ(tgi.generation_tokens, 20);
  EXPECT_FALSE(tgi.kv_cache_usage_peak.has_value());

  const ServerDelta none = server_delta(scrapes("process_cpu_seconds_total 1\n", "process_cpu_seconds_total 2\n"));
  EXPECT_EQ(none.dialect, "");
  EXPECT_FALSE(none.prompt_tokens.has_value());
  EXPECT_EQ(none.missing.size(), 6u);
}

TEST(LoadServerMetrics, APeakSeenBetweenScrapesCountsAndAFailedLastScrapeIsKept) {
  auto s = scrapes("vllm:kv_cache_usage_perc 0.1\nvllm:prompt_tokens_total 1\n",
                   "vllm:kv_cache_usage_perc 0.2\nvllm:prompt_tokens_total 9\n");
  s.peaks["vllm:kv_cache_usage_perc"] = 0.9;
  s.last_error = "connection refused";
  const ServerDelta d = server_delta(s);
  EXPECT_EQ(d.kv_cache_usage_peak, 0.9);
  EXPECT_EQ(d.prompt_tokens, 8);
  EXPECT_EQ(d.error, "connection refused");
}

TEST(LoadMetrics, ARepliesReadWholeHaveNoTpotAndNoSamplesIsCountZero) {
  RequestRecord r = stream(0, 0, 100, 0, 1, 20);  // one arrival holding 20 tokens
  r.streamed = false;
  RunRecords recs;
  recs.requests.push_back(r);
  recs.duration_ms = 200;
  Slo slo;
  slo.tpot_ms = 5;
  const LevelReport l = summarize_level(recs, slo, kPercentiles);
  EXPECT_EQ(l.completed, 1u);
  EXPECT_EQ(l.lat.tpot.summary.count, 0u) << "no TPOT sample of 0 for a reply read whole";
  EXPECT_EQ(l.unstreamed, 1u);
  EXPECT_EQ(l.good_requests, 0u) << "a TPOT goal is not met by a reply without a TPOT";
}

TEST(LoadMetrics, TruncatedPromptsAreCounted) {
  RequestRecord r = stream(0, 0, 10, 1, 4, 4);
  r.known_input_tokens = 100;
  r.input_tokens = 60;  // the server's count
  RunRecords recs;
  recs.requests.push_back(r);
  recs.requests.push_back(stream(0, 0, 10, 1, 4, 4));
  recs.duration_ms = 100;
  const LevelReport l = summarize_level(recs, Slo{}, kPercentiles);
  EXPECT_EQ(l.truncated_prompts, 1u);
  EXPECT_EQ(l.total_input_tokens, 70);
}

TEST(LoadMetrics, ChosenPercentilesAreComputed) {
  RunRecords recs;
  for (int i = 0; i < 101; ++i) recs.requests.push_back(stream(0, 0, 10 + i, 1, 2, 2));
  recs.duration_ms = 1000;
  const LevelReport l = summarize_level(recs, Slo{}, {25, 50, 99.9});
  ASSERT_EQ(l.lat.ttft.percentiles.size(), 3u);
  EXPECT_DOUBLE_EQ(l.lat.ttft.percentiles[0], 35);
  EXPECT_DOUBLE_EQ(l.lat.ttft.percentiles[1], 60);
  EXPECT_NEAR(l.lat.ttft.percentiles[2], 109.9, 1e-9);
}

TEST(LoadTypes, ErrorClassNamesGoBothWays) {
  for (ErrorClass c : kFailureClasses) EXPECT_EQ(parse_error_class(to_string(c)), c);
  EXPECT_EQ(to_string(ErrorClass::cancelled), "cancelled");
  EXPECT_FALSE(parse_error_class("nope").has_value());
}
