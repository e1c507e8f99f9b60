// Every capability's Report goes out as JSON and comes back through its from_json: read by
// flows::parse_result, which names the command from run_info, and written again, the document
// is the same. The readers also refuse what is not theirs, naming the file and why.
#include <gtest/gtest.h>

#include <fstream>

#include "flows/results.h"
#include "load/metrics.h"
#include "patrol/patrol.h"
#include "plan/run.h"
#include "port/port.h"
#include "telemetry/run.h"
#include "tempdir.h"
#include "test_telemetry_helpers.h"
#include "util/json_text.h"

using namespace dcukit;

namespace {

std::string fixture(const std::string& rel) {
  return std::string(DCUKIT_FIXTURES) + "/" + rel;
}

core::RunInfo info(const std::string& tool) {
  core::RunInfo i = core::collect_run_info(tool, tool + " --json out.json");
  i.environment = {{"CUDA_VISIBLE_DEVICES", "0,1"}};
  return i;
}

/// Writes `doc`, reads it back through flows, and writes what was read: the same document.
template <class Report, class ToJson>
void round_trip(const nlohmann::ordered_json& doc, flows::ResultKind kind, ToJson to_json) {
  const std::string text = util::json_document(doc);
  auto read = flows::parse_result(text, "result.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->kind, kind);
  const auto* report = std::get_if<Report>(&read->report);
  ASSERT_NE(report, nullptr) << "read as another kind of report";
  EXPECT_EQ(util::json_document(to_json(*report)), text);
}

}  // namespace

TEST(FlowsResults, APlanComesBackAsWritten) {
  plan::Request r;
  r.model = fixture("models/qwen3-8b");
  r.gpu = "BW1000";
  r.count = 4;
  r.asked.max_model_len = 32768;
  r.command = "dcukit plan --model qwen3-8b --gpu BW1000 --count 4";
  auto report = plan::run(r);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_FALSE(report->plan.options.empty());
  round_trip<plan::Report>(plan::to_json(*report), flows::ResultKind::plan,
                           [](const plan::Report& p) { return plan::to_json(p); });
}

TEST(FlowsResults, ACheckedLogComesBackAsWritten) {
  plan::Request r;
  r.check_log = fixture("vllm-logs/dennislee22-a100-80g-qwen2-7b-tp1-u025.txt");
  r.model = fixture("models/qwen2-7b-instruct");
  r.gpu = "a100-sxm-80gb";  // the log names no card total
  auto report = plan::run(r);
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->check && !report->check->runs.empty());
  round_trip<plan::Report>(plan::to_json(*report), flows::ResultKind::plan,
                           [](const plan::Report& p) { return plan::to_json(p); });
}

TEST(FlowsResults, ALoadRunComesBackAsWritten) {
  load::Report r;
  r.run_info = info("dcukit load");
  r.date = "20261205-101500";
  r.backend = r.label = "openai";
  r.model = "Qwen3-8B";
  r.url = "http://127.0.0.1:8000";
  r.endpoint = "/v1/completions";
  r.dataset = "random";
  r.input_len = 8;
  r.output_len = 4;
  r.prompts = "token ids";
  r.metadata = {{"zeta", "last"}, {"alpha", "first"}};  // the order given, not sorted
  r.slo = {100, 20, 0};
  r.percentile_metrics = {"ttft", "tpot", "itl", "e2el"};
  r.metric_percentiles = {50, 99.9};
  r.notes = {"a note"};
  for (int level = 0; level < 2; ++level) {
    load::RunRecords recs;
    for (int i = 0; i < 4; ++i) {
      load::RequestRecord q;
      q.index = i;
      q.first_token_ms = 10 + i;
      for (int c = 0; c < 3; ++c) q.chunk_ms.push_back(q.first_token_ms + 5 * c), q.chunk_bytes.push_back(4);
      q.last_token_ms = q.done_ms = q.chunk_ms.back();
      q.input_tokens = 8;
      q.output_tokens = 3;
      q.usage_reported = true;
      recs.requests.push_back(q);
    }
    load::RequestRecord failed;
    failed.index = 4;
    failed.error = load::ErrorClass::http_status;
    failed.http_status = 503;
    failed.error_message = "HTTP 503: overloaded";
    recs.requests.push_back(failed);
    recs.duration_ms = 1000;
    load::LevelReport l = load::summarize_level(std::move(recs), r.slo, r.metric_percentiles);
    l.kind = level == 0 ? load::ShapeKind::closed : load::ShapeKind::open;
    l.concurrency = level == 0 ? 8 : 0;
    l.rate = 4;
    l.label = level == 0 ? "concurrency 8" : "rate 4/s";
    load::ServerDelta server;
    server.dialect = "vllm";
    server.prompt_tokens = 32;
    server.missing = {"kv_cache_usage_peak"};
    l.server = server;
    r.levels.push_back(std::move(l));
  }
  round_trip<load::Report>(load::to_json(r), flows::ResultKind::load,
                           [](const load::Report& x) { return load::to_json(x); });
}

TEST(FlowsResults, AnAuditAndATranslationComeBackAsWritten) {
  testutil::TempDir dir("flows_port");
  const std::string src = dir.write("k.cu",
                                    "#include <cublas_v2.h>\n"
                                    "__global__ void k(float* x) {\n"
                                    "  float v = x[threadIdx.x];\n"
                                    "  v += __shfl_xor_sync(0xffffffff, v, 16);\n"
                                    "  v += __shfl_xor_sync(0xffffffff, v, 8);\n"
                                    "  x[threadIdx.x] = v;\n"
                                    "}\n");
  auto audit = port::run(port::AuditRequest{{src}, {}, {}, "dcukit port audit k.cu"});
  ASSERT_TRUE(audit.ok()) << audit.error().message;
  ASSERT_FALSE(audit->findings.empty());
  round_trip<port::AuditReport>(port::to_json(*audit), flows::ResultKind::port_audit,
                                [](const port::AuditReport& a) { return port::to_json(a); });
  port::TranslateRequest t;
  t.inputs = {src};
  t.output = dir.file("k.hip");
  t.command = "dcukit port translate k.cu -o k.hip";
  auto translated = port::run(t);
  ASSERT_TRUE(translated.ok()) << translated.error().message;
  round_trip<port::TranslateReport>(port::to_json(*translated), flows::ResultKind::port_translate,
                                    [](const port::TranslateReport& x) { return port::to_json(x); });
}

TEST(FlowsResults, TelemetryReadingsComeBackAsWritten) {
  // A DCU host's sysfs (processes, sources) and captures with topology and checks.
  telemetry::Request live;
  live.collect.choice = telemetry::SourceChoice::sysfs;
  live.collect.root = util::Root(testutil::telemetry_fixture("sysfs-dcu-host"));
  std::vector<telemetry::Snapshot> readings;
  live.on_reading = [&](const telemetry::Snapshot& s, bool) {
    readings.push_back(s);
    return true;
  };
  ASSERT_TRUE(telemetry::run(live).ok());
  readings.push_back(testutil::read_sample("nvidia-smi/q-h100-80gb-load.txt"));
  readings.push_back(testutil::read_sample("nvidia-smi/topo-m-8xh100-nvlink-nv18-no-nic.txt"));
  readings.push_back(testutil::read_sample("hy-smi/plain-dcu-8card-600w-manual-k100ai-dtk24.04.3.txt"));
  for (const auto& s : readings) {
    SCOPED_TRACE(s.path);
    ASSERT_FALSE(s.devices.empty() && s.topology.links.empty());
    const auto run_info = info("dcukit telemetry");
    round_trip<telemetry::Snapshot>(telemetry::to_json(run_info, s), flows::ResultKind::telemetry,
                                    [&](const telemetry::Snapshot& x) { return telemetry::to_json(run_info, x); });
  }
}

TEST(FlowsResults, APatrolGuardAndExporterReportComeBackAsWritten) {
  patrol::Request p;
  p.from = testutil::telemetry_fixture("samples/hy-smi/plain-dcu-8card-600w-manual-k100ai-dtk24.04.3.txt");
  p.command = "dcukit patrol --from hy-smi.txt";
  ASSERT_TRUE(p.thresholds.set("temperature=40,90"));
  auto inspected = patrol::run(p);
  ASSERT_TRUE(inspected.ok());
  ASSERT_FALSE(inspected->perfdata.empty());
  round_trip<patrol::Report>(patrol::to_json(*inspected), flows::ResultKind::patrol,
                             [](const patrol::Report& x) { return patrol::to_json(x); });

  guard::Report g;
  g.run_info = info("dcukit guard");
  g.restarts = 3;
  g.final_state = guard::State::failed;
  g.stop_complete = false;
  round_trip<guard::Report>(guard::to_json(g), flows::ResultKind::guard,
                            [](const guard::Report& x) { return guard::to_json(x); });

  exporter::Report e;
  e.run_info = info("dcukit exporter");
  e.address = "127.0.0.1:9402";
  e.scrapes = 120;
  e.collect_errors = 2;
  round_trip<exporter::Report>(exporter::to_json(e), flows::ResultKind::exporter,
                               [](const exporter::Report& x) { return exporter::to_json(x); });
}

TEST(FlowsResults, AWatchFileIsReadFromItsFirstLine) {
  const auto s = testutil::read_sample("nvidia-smi/q-h100-80gb-load.txt");
  const auto line = util::json_text(telemetry::to_json(info("dcukit telemetry"), s)) + "\n";
  auto read = flows::parse_result(line + line, "watch.jsonl");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(std::get<telemetry::Snapshot>(read->report).devices.size(), s.devices.size());
}

TEST(FlowsResults, WhatIsNotADcukitResultIsRefusedByName) {
  const auto refused = [](const std::string& text, const std::string& part) {
    auto r = flows::parse_result(text, "x.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find("x.json"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(part), std::string::npos) << r.error().message;
  };
  refused("not json", "not JSON");
  refused("[1, 2]", "not JSON");
  refused(R"({"devices": []})", "no run_info");
  refused(R"({"run_info": {"tool": "dcukit frobnicate"}})", "'dcukit frobnicate'");
  // The right tool, the wrong shape: the capability's own reason.
  refused(R"({"run_info": {"tool": "dcukit plan"}, "schema_version": 1})", "not a dcukit plan report");
  refused(R"({"run_info": {"tool": "dcukit load"}, "runs": [{"load_shape": "sideways"}]})", "sideways");
  refused(R"({"run_info": {"tool": "dcukit patrol"}, "state": "FINE", "findings": []})", "not a dcukit patrol");
}

TEST(FlowsResults, AFolderIsReadWholeAndAStrayFileIsNamed) {
  testutil::TempDir dir("flows_dir");
  guard::Report g;
  g.run_info = info("dcukit guard");
  dir.write("a/guard.json", util::json_document(guard::to_json(g)));
  exporter::Report e;
  e.run_info = info("dcukit exporter");
  e.address = "127.0.0.1:1";
  dir.write("b.json", util::json_document(exporter::to_json(e)));
  dir.write("notes.txt", "not read: not .json");
  auto all = flows::read_results(dir.path());
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].kind, flows::ResultKind::guard);
  EXPECT_EQ((*all)[1].kind, flows::ResultKind::exporter);
  dir.write("c.json", "{}");
  auto stray = flows::read_results(dir.path());
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.error().message.find("c.json"), std::string::npos) << stray.error().message;
}
