#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <string>
#include <thread>

#include "serving/canary.h"

using namespace dcukit::serving;
using namespace std::chrono_literals;

namespace {

/// A server whose /v1/completions answers what `mode` says and whose /v1/models lists `models`.
class CanaryServer {
public:
  CanaryServer() {
    m_server.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
      last_body = req.body;
      const std::string m = mode;
      if (m == "hang") std::this_thread::sleep_for(1500ms);
      if (m == "500") {
        res.status = 500;
        res.set_content("engine dead", "text/plain");
      } else if (m == "garbage") {
        res.set_content("not json", "text/plain");
      } else if (m == "empty") {
        res.set_content(R"({"choices": []})", "application/json");
      } else {
        res.set_content(R"({"choices": [{"text": " world"}]})", "application/json");
      }
    });
    m_server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(models, "application/json");
    });
    m_port = m_server.bind_to_any_port("127.0.0.1");
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~CanaryServer() {
    m_server.stop();
    m_thread.join();
  }
  Endpoint endpoint() const { return {"http://127.0.0.1:" + std::to_string(m_port), {}, {}}; }

  std::string mode = "ok";
  std::string models = R"({"data": [{"id": "a"}, {"id": "b"}]})";
  std::string last_body;

private:
  httplib::Server m_server;
  std::thread m_thread;
  int m_port = 0;
};

}  // namespace

TEST(ServingCanary, AWellFormedCompletionPassesWithItsLatency) {
  CanaryServer s;
  auto r = send_canary(s.endpoint(), {.model = "a", .prompt = "Hi", .max_tokens = 2, .timeout = 5s});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text, " world");
  EXPECT_GT(r->latency_seconds, 0);
  EXPECT_NE(s.last_body.find("\"max_tokens\":2"), std::string::npos) << s.last_body;
  EXPECT_NE(s.last_body.find("\"model\":\"a\""), std::string::npos);
}

TEST(ServingCanary, EachWayOfFailingIsNamed) {
  CanaryServer s;
  const std::pair<const char*, const char*> cases[] = {
      {"500", "HTTP 500"}, {"garbage", "no \"choices\""}, {"empty", "no \"choices\""}, {"hang", "canary failed after"}};
  for (const auto& [mode, words] : cases) {
    s.mode = mode;
    auto r = send_canary(s.endpoint(), {.model = "a", .timeout = 300ms});
    ASSERT_FALSE(r) << mode;
    EXPECT_NE(r.error().message.find(words), std::string::npos) << mode << ": " << r.error().message;
  }
}

TEST(ServingCanary, ServedModelPicksTheWantedOrTheFirst) {
  CanaryServer s;
  EXPECT_EQ(*served_model(s.endpoint(), "", 5s), "a");
  EXPECT_EQ(*served_model(s.endpoint(), "b", 5s), "b");
  auto missing = served_model(s.endpoint(), "c", 5s);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("it lists a, b"), std::string::npos) << missing.error().message;
  s.models = R"({"data": []})";
  EXPECT_FALSE(served_model(s.endpoint(), "", 5s));
}
