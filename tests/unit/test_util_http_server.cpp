#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "util/http.h"
#include "util/http_server.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

namespace {

std::string url(const HttpServer& s, const std::string& path) {
  return "http://127.0.0.1:" + std::to_string(s.port()) + path;
}

}  // namespace

TEST(UtilHttpServer, ServesRoutesOnAnAnyPortAndAnswers404Elsewhere) {
  HttpServer s({.host = "127.0.0.1", .port = 0});
  s.get("/metrics", [](const HttpServerRequest& r) {
    return HttpServerReply{200, "text/plain", "m " + r.path + (r.params.count("x") ? " x=" + r.params.at("x") : "")};
  });
  ASSERT_TRUE(s.start());
  ASSERT_GT(s.port(), 0);
  auto r = http_request({.url = url(s, "/metrics?x=1"), .timeout = 5s});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "m /metrics x=1");
  auto missing = http_request({.url = url(s, "/metricsX"), .timeout = 5s});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  s.stop();
  EXPECT_FALSE(http_request({.url = url(s, "/metrics"), .timeout = 1s}));
  s.stop();  // twice is fine
}

TEST(UtilHttpServer, APortInUseIsAnErrorNamingTheAddress) {
  HttpServer a({.host = "127.0.0.1", .port = 0});
  ASSERT_TRUE(a.start());
  HttpServer b({.host = "127.0.0.1", .port = a.port()});
  auto st = b.start();
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("127.0.0.1:" + std::to_string(a.port())), std::string::npos) << st.message();
}

TEST(UtilHttpServer, SlowHandlersUseTheBoundedPoolAndStopWaitsForThem) {
  HttpServer s({.host = "127.0.0.1", .port = 0, .threads = 2, .max_queue = 2});
  std::atomic<int> running{0}, peak{0};
  s.get("/slow", [&](const HttpServerRequest&) {
    const int now = ++running;
    for (int p = peak.load(); now > p && !peak.compare_exchange_weak(p, now);) {
    }
    std::this_thread::sleep_for(100ms);
    --running;
    return HttpServerReply{200, "text/plain", "ok"};
  });
  ASSERT_TRUE(s.start());
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i)
    clients.emplace_back([&] {
      auto r = http_request({.url = url(s, "/slow"), .timeout = 10s});
      if (r && r->status == 200) ++ok;
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok.load(), 8);
  EXPECT_LE(peak.load(), 2);
  s.stop();
  EXPECT_EQ(running.load(), 0);
}
