// The JSON, CSV and text of a load report, and `load compare` reading them back.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "load/metrics.h"
#include "load/compare.h"
#include "load/render.h"
#include "tempdir.h"
#include "util/json_text.h"

using namespace dcukit;
using namespace dcukit::load;
using nlohmann::json;

namespace {

/// The report's one level, with the file's header fields: to_json keeps its levels under
/// "runs" whatever their number (LoadRender.TheShapeIsTheSameForOneLevelAndMany checks that).
template <class Json = json>
Json one_level(const std::string& text) {
  Json j = Json::parse(text);
  if (j.contains("runs") && j["runs"].size() == 1) {
    Json level = j["runs"][0];
    for (auto it = level.begin(); it != level.end(); ++it) j[it.key()] = it.value();
  }
  return j;
}

RequestRecord ok_record(double ttft, int tokens) {
  RequestRecord r;
  r.sent_ms = 0;
  r.first_token_ms = ttft;
  for (int i = 0; i < tokens; ++i) {
    r.chunk_ms.push_back(ttft + i);
    r.chunk_bytes.push_back(3);
  }
  r.last_token_ms = r.chunk_ms.back();
  r.done_ms = r.last_token_ms;
  r.output_tokens = tokens;
  r.input_tokens = 8;
  r.usage_reported = true;
  r.text = "generated";
  return r;
}

Report report_of(std::vector<RunRecords> levels, int concurrency = 1) {
  Report r;
  r.run_info.tool = "dcukit load";
  r.run_info.command = "dcukit load --url http://h";
  r.model = "m";
  r.dataset = "random";
  r.input_len = 8;
  r.output_len = 4;
  for (const auto& m : kLatencyMetrics) r.percentile_metrics.emplace_back(m.key);
  r.metric_percentiles = {50, 99.9};
  for (auto& recs : levels) {
    LevelReport l = summarize_level(std::move(recs), Slo{}, r.metric_percentiles);
    l.concurrency = concurrency++;
    l.label = "concurrency " + std::to_string(l.concurrency);
    r.levels.push_back(std::move(l));
  }
  return r;
}

}  // namespace

TEST(LoadRender, StartsWithRunInfoAndNamesPercentilesAsVllm) {
  RunRecords recs;
  recs.requests = {ok_record(10, 4), ok_record(20, 4)};
  recs.duration_ms = 100;
  Report r = report_of({recs});
  r.metadata = {{"tp", "2"}, {"gpu", "K100"}};
  const auto j = one_level<nlohmann::ordered_json>(util::json_document(to_json(r)));
  EXPECT_EQ(j.begin().key(), "run_info");
  EXPECT_EQ(j["run_info"]["tool"], "dcukit load");
  EXPECT_EQ(j["tp"], "2");
  EXPECT_EQ(j["gpu"], "K100");
  EXPECT_TRUE(j.contains("p50_ttft_ms"));
  EXPECT_TRUE(j.contains("p99.9_ttft_ms"));
  EXPECT_FALSE(j.contains("p99_ttft_ms")) << "only the percentiles asked for";
  EXPECT_FALSE(j.contains("itls")) << "per-request arrays need --save-detailed, as in vLLM";
  EXPECT_FALSE(j.contains("requests"));
  EXPECT_EQ(j["problem"], nullptr);
}

TEST(LoadRender, SaveDetailedAddsVllmsArraysAndGeneratedTexts) {
  RunRecords recs;
  recs.requests = {ok_record(10, 3)};
  RequestRecord bad;
  bad.error = ErrorClass::cancelled;
  bad.error_message = "cancelled: stopped";
  recs.requests.push_back(bad);
  recs.duration_ms = 100;
  Report r = report_of({recs});
  r.save_detailed = true;
  r.percentile_metrics = {"ttft", "e2el"};
  const json j = one_level(util::json_document(to_json(r)));
  EXPECT_EQ(j["generated_texts"], json::array({"generated", ""}));
  EXPECT_EQ(j["errors"][1], "cancelled: stopped");
  EXPECT_EQ(j["itls"][0].size(), 2u);
  EXPECT_EQ(j["requests"].size(), 2u);
  EXPECT_EQ(j["errors_cancelled"], 1);
  EXPECT_TRUE(j.contains("median_e2el_ms"));
  EXPECT_FALSE(j.contains("median_tpot_ms")) << "only the metrics asked for";
}

TEST(LoadRender, NoSamplesIsNullInJsonAndDashInText) {
  RunRecords recs;
  RequestRecord r1 = ok_record(10, 1);  // one token: no TPOT, no ITL
  recs.requests = {r1};
  recs.duration_ms = 50;
  Report r = report_of({recs});
  const json j = one_level(util::json_document(to_json(r)));
  EXPECT_EQ(j["median_tpot_ms"], nullptr);
  EXPECT_EQ(j["p50_itl_ms"], nullptr);
  EXPECT_EQ(j["median_ttft_ms"], 10.0);
  const auto tables = report_tables(r);
  const auto& row = tables[0].rows[0];
  EXPECT_EQ(row[9], "-") << "TPOT p50";
  EXPECT_EQ(row[13], "-") << "decode tok/s/req";
  const std::string csv = report_csv(r);
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string row_text = csv.substr(csv.find('\n') + 1);
  const auto column =
      std::count(header.begin(), header.begin() + static_cast<long>(header.find("median_tpot_ms")), ',');
  std::size_t pos = 0;
  for (long i = 0; i < column; ++i) pos = row_text.find(',', pos) + 1;
  EXPECT_EQ(row_text[pos], ',') << "an empty cell, not 0: " << csv;
}

TEST(LoadRender, ServerFiguresItDoesNotExposeAreNull) {
  RunRecords recs;
  recs.requests = {ok_record(10, 4)};
  recs.duration_ms = 50;
  Report r = report_of({recs});
  ServerDelta d;
  d.dialect = "llamacpp";
  d.prompt_tokens = 8;
  d.generation_tokens = 4;
  r.levels[0].server = d;
  const json j = one_level(util::json_document(to_json(r)));
  EXPECT_EQ(j["server_prompt_tokens"], 8.0);
  EXPECT_EQ(j["server_kv_cache_usage_peak"], nullptr);
  EXPECT_EQ(j["server_preemptions"], nullptr);
  const auto text = core::render_text(report_tables(r)[1]);
  EXPECT_NE(text.find("- preemptions"), std::string::npos) << text;
}

TEST(LoadRender, ReservedKeysIncludeTheResultsOwnFields) {
  const auto keys = reserved_keys();
  for (const char* k : {"completed", "model_id", "request_rate", "run_info", "itls", "server_prompt_tokens"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
}

TEST(LoadCompare, PairsLevelsByLoadAndShowsWhatDiffers) {
  testutil::TempDir dir("compare");
  RunRecords a1, a2, b2;
  a1.requests = {ok_record(10, 4)};
  a2.requests = {ok_record(20, 4)};
  b2.requests = {ok_record(30, 4)};
  a1.duration_ms = a2.duration_ms = b2.duration_ms = 100;
  Report a = report_of({a1, a2}, 1);  // concurrency 1 and 2
  Report b = report_of({b2}, 2);      // concurrency 2 only
  b.model = "other-model";
  const auto pa = dir.write("a.json", util::json_document(to_json(a)));
  const auto pb = dir.write("b.json", util::json_document(to_json(b)));
  auto tables = compare_files(pa, pb);
  ASSERT_TRUE(tables) << tables.error().message;
  ASSERT_EQ(tables->size(), 2u);  // what differs, and the one shared level
  const std::string diff = core::render_text((*tables)[0]);
  EXPECT_NE(diff.find("model_id"), std::string::npos) << diff;
  EXPECT_NE(diff.find("other-model"), std::string::npos);
  EXPECT_NE(diff.find("Only in A, not compared: concurrency 1"), std::string::npos) << diff;
  const std::string level = core::render_text((*tables)[1]);
  EXPECT_NE(level.find("concurrency 2"), std::string::npos) << level;
  EXPECT_NE(level.find("+50.0%"), std::string::npos) << "median TTFT 20 -> 30: " << level;
}

TEST(LoadCompare, AFileWithoutResultsIsRefused) {
  testutil::TempDir dir("compare_bad");
  RunRecords recs;
  recs.requests = {ok_record(10, 4)};
  recs.duration_ms = 100;
  const auto good = dir.write("good.json", util::json_document(to_json(report_of({recs}))));
  for (const char* body : {"{}", "[]", "not json", R"({"runs": []})", R"({"runs": [{"completed": "x"}]})"}) {
    const auto bad = dir.write("bad.json", body);
    auto t = compare_files(good, bad);
    ASSERT_FALSE(t) << body;
    EXPECT_NE(t.error().message.find("bad.json"), std::string::npos) << t.error().message;
  }
}
