#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <thread>

#include "local_server.h"
#include "serving/probe.h"
#include "serving/watcher.h"
#include "util/signals.h"
#include "no_hang.h"

using namespace dcukit;
using namespace std::chrono_literals;

namespace {

using testutil::LocalServer;

/// The endpoint of a local server, without credentials or headers.
serving::Endpoint endpoint(const LocalServer& s) {
  return {s.url(), {}, {}};
}

}  // namespace

TEST(ServingProbe, ListsModelsInOrder) {
  LocalServer s;
  s.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& r) {
    r.set_content(R"({"object":"list","data":[{"id":"b"},{"id":"a"}]})", "application/json");
  });
  auto m = serving::list_models(endpoint(s), 2s);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(*m, (std::vector<std::string>{"b", "a"}));
}

TEST(ServingProbe, AMalformedModelListIsAnErrorNotACrash) {
  for (const char* body : {R"({"data":[{"id":5}]})", R"({"data":{}})", "[1,2]", "not json", R"({"data":[7]})"}) {
    LocalServer s;
    s.http().Get("/v1/models",
                 [body](const httplib::Request&, httplib::Response& r) { r.set_content(body, "application/json"); });
    auto m = serving::list_models(endpoint(s), 2s);
    ASSERT_FALSE(m) << body;
    EXPECT_NE(m.error().message.find("/v1/models"), std::string::npos) << m.error().message;
  }
}

TEST(ServingProbe, WaitsUntilHealthThenModelsAnswer) {
  std::atomic<int> calls{0};  // before the server: its threads never outlive what they touch
  LocalServer s;
  s.http().Get("/health", [&](const httplib::Request&, httplib::Response& r) { r.status = ++calls < 3 ? 503 : 200; });
  s.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& r) {
    r.set_content(R"({"data":[]})", "application/json");
  });
  EXPECT_TRUE(serving::wait_ready(endpoint(s), 10s));
  EXPECT_EQ(calls.load(), 3);
}

TEST(ServingProbe, GivesUpAtItsBudgetSayingWhy) {
  LocalServer s;
  s.http().Get("/health", [](const httplib::Request&, httplib::Response& r) { r.status = 503; });
  const auto start = std::chrono::steady_clock::now();
  const Status st = serving::wait_ready(endpoint(s), 600ms);
  ASSERT_FALSE(st);
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  EXPECT_NE(st.message().find("/health was not ready"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("HTTP 503"), std::string::npos);
}

TEST(ServingProbe, AStopEndsTheWait) {
  auto& token = util::StopToken::process();
  token.reset();
  std::thread t([&] {
    std::this_thread::sleep_for(200ms);
    token.request_stop();
  });
  const auto start = std::chrono::steady_clock::now();
  const Status st = serving::wait_ready({"http://127.0.0.1:1", {}, {}}, testutil::kStall, &token);
  t.join();
  ASSERT_FALSE(st);
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  EXPECT_NE(st.message().find("stopped"), std::string::npos);
  token.reset();
}

TEST(ServingWatcher, KeepsWhatItSawWhenTheServerDies) {
  auto s = std::make_unique<LocalServer>();
  std::atomic<int> n{0};
  s->http().Get("/metrics", [&](const httplib::Request&, httplib::Response& r) {
    const int i = ++n;
    r.set_content("tokens_total " + std::to_string(10 * i) + "\nkv " + (i == 2 ? "0.9" : "0.1") + "\n", "text/plain");
  });
  serving::MetricsWatcher w(s->url() + "/metrics", {}, {}, {"kv"}, 50ms);
  ASSERT_TRUE(w.start());
  while (n.load() < 3) std::this_thread::sleep_for(10ms);
  s.reset();  // the server goes away before the last scrape
  const auto r = w.stop();
  EXPECT_FALSE(r.last_error.empty());
  EXPECT_DOUBLE_EQ(r.before.at("tokens_total"), 10);
  EXPECT_GE(r.after.at("tokens_total"), 30);
  EXPECT_DOUBLE_EQ(r.peaks.at("kv"), 0.9);
  EXPECT_GE(r.scrapes, 3);
}

TEST(ServingProbe, ContextLengthFromEachServersOwnPlace) {
  {
    LocalServer vllm;
    vllm.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(R"({"data":[{"id":"other","max_model_len":10},{"id":"m","max_model_len":8192}]})",
                    "application/json");
    });
    EXPECT_EQ(serving::context_length(endpoint(vllm), "m", 2s), 8192);
  }
  {
    LocalServer llama;  // its /v1/models has no max_model_len; /props has the per-slot context
    llama.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(R"({"data":[{"id":"m","meta":{"n_ctx_train":4096}}]})", "application/json");
    });
    llama.http().Get("/props", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(R"({"default_generation_settings":{"n_ctx":1024}})", "application/json");
    });
    EXPECT_EQ(serving::context_length(endpoint(llama), "m", 2s), 1024);
  }
  {
    LocalServer tgi;
    tgi.http().Get("/info", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(R"({"max_total_tokens":2048})", "application/json");
    });
    EXPECT_EQ(serving::context_length(endpoint(tgi), "m", 2s), 2048);
  }
  {
    LocalServer odd;  // wrong types and nonsense are not a length
    odd.http().Get("/v1/models", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(R"({"data":[{"id":"m","max_model_len":"8192"}]})", "application/json");
    });
    odd.http().Get("/info", [](const httplib::Request&, httplib::Response& r) {
      r.set_content(R"({"max_total_tokens":-5})", "application/json");
    });
    EXPECT_FALSE(serving::context_length(endpoint(odd), "m", 2s).has_value());
  }
}

TEST(ServingProbe, ParseModelsTellsAWrongReplyApart) {
  auto ok = serving::parse_models(R"({"data":[{"id":"a"}]})", "X");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->front(), "a");
  auto bad = serving::parse_models(R"({"data":[{"id":5}]})", "X/v1/models");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("X/v1/models"), std::string::npos);
}
