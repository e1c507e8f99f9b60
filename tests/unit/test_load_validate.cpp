// load::validate: the engine's own checks across a Request's fields and the defaults it fills,
// whoever filled the Request (the CLI or a pipeline).
#include <gtest/gtest.h>

#include "load/render.h"
#include "load/validate.h"

using namespace dcukit;

namespace {

load::Request minimal() {
  load::Request q;
  q.url = "http://127.0.0.1:8000";
  return q;
}

}  // namespace

TEST(LoadValidate, TheDefaultsAreTheEnginesOwn) {
  auto q = minimal();
  q.endpoint = "v1/chat/completions";
  ASSERT_TRUE(load::validate(q));
  EXPECT_EQ(q.num_prompts, 200u) << "200 requests a level unless a duration bounds it";
  EXPECT_EQ(q.endpoint, "/v1/chat/completions");
  EXPECT_EQ(q.percentile_metrics.size(), load::kLatencyMetrics.size());
  EXPECT_EQ(q.metric_percentiles, (std::vector<double>{90, 95, 99, 99.9}));
  auto timed = minimal();
  timed.duration_s = 30;
  ASSERT_TRUE(load::validate(timed));
  EXPECT_EQ(timed.num_prompts, 0u) << "a duration alone bounds the level";
}

TEST(LoadValidate, CombinationsThatCannotRunAreRefusedInTheFlagsNames) {
  const auto refused = [](load::Request q, const std::string& part) {
    const Status s = load::validate(q);
    ASSERT_FALSE(s) << part;
    EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  };
  refused(load::Request{}, "--url is required");
  auto ftp = minimal();
  ftp.url = "ftp://host";
  refused(ftp, "use an http or https URL");
  auto loops = minimal();
  loops.concurrencies = {1};
  loops.rates = {2};
  refused(loops, "exclude each other");
  auto ids = minimal();
  ids.endpoint = "/v1/chat/completions";
  ids.prompts = load::PromptMode::ids;
  refused(ids, "--prompt ids needs /v1/completions");
  auto file = minimal();
  file.workload.kind = load::DatasetKind::sharegpt;
  refused(file, "needs --dataset-path FILE");
  auto tpot = minimal();
  tpot.body.stream = false;
  tpot.slo.tpot_ms = 50;
  refused(tpot, "--slo tpot needs streamed replies");
  auto meta = minimal();
  meta.metadata = {{"a", "1"}, {"a", "2"}};
  refused(meta, "'a' is given twice");
  auto reserved = minimal();
  reserved.metadata = {{load::reserved_keys().front(), "x"}};
  refused(reserved, "is a field of the results");
  auto header = minimal();
  header.headers = {"X-A: 1\r\nX-B: 2"};
  refused(header, "on one line");
}
