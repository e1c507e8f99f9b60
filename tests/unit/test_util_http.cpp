// util::http_request against a real server on loopback: statuses are responses, transport
// failures are errors naming the URL, and the deadline holds against a server that stalls.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include "local_server.h"
#include "util/http.h"
#include "no_hang.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

TEST(UtilHttp, GetsAndPostsWithHeaders) {
  std::string seen_body, seen_header;  // before the server: its threads never outlive what they touch
  testutil::LocalServer s;
  s.http().Get("/hello", [](const httplib::Request&, httplib::Response& r) { r.set_content("hi", "text/plain"); });
  s.http().Post("/echo", [&](const httplib::Request& q, httplib::Response& r) {
    seen_body = q.body;
    seen_header = q.get_header_value("X-Test");
    r.set_content("ok", "text/plain");
  });
  auto get = http_request({s.url() + "/hello"});
  ASSERT_TRUE(get) << get.error().message;
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "hi");
  HttpRequest post{s.url() + "/echo"};
  post.method = "POST";
  post.body = R"({"a":1})";
  post.headers = {"X-Test: yes", "Content-Type: application/json"};
  auto p = http_request(post);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(p->status, 200);
  EXPECT_EQ(seen_body, R"({"a":1})");
  EXPECT_EQ(seen_header, "yes");
}

TEST(UtilHttp, AnHttpErrorIsAResponseNotAFailure) {
  testutil::LocalServer s;
  s.http().Get("/down", [](const httplib::Request&, httplib::Response& r) {
    r.status = 503;
    r.set_content("busy", "text/plain");
  });
  auto r = http_request({s.url() + "/down"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body, "busy");
}

TEST(UtilHttp, ARefusedConnectionIsAnErrorNamingTheUrl) {
  int port = 0;
  {
    testutil::LocalServer gone;  // a port that was just free and is closed again
    port = gone.port();
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/x";
  auto r = http_request({url});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find(url), std::string::npos) << r.error().message;
}

TEST(UtilHttp, TheDeadlineHoldsAgainstAServerThatStalls) {
  testutil::LocalServer s;
  // The handler stalls for kStall, or until the test ends (the server's end waits for it).
  struct Release {
    std::promise<void> done;
    std::shared_future<void> ended = done.get_future().share();
    ~Release() { done.set_value(); }
  } release;
  s.http().Get("/slow", [ended = release.ended](const httplib::Request&, httplib::Response& r) {
    ended.wait_for(testutil::kStall);
    r.set_content("late", "text/plain");
  });
  HttpRequest q{s.url() + "/slow"};
  q.timeout = 200ms;
  const auto start = std::chrono::steady_clock::now();
  auto r = http_request(q);
  EXPECT_FALSE(r);
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
}

TEST(UtilHttp, AReplyLargerThanTheLimitIsAnErrorNotAnAllocation) {
  // A /v1/models that claims 10 GB once took 4.2 GB of memory.
  // The server's threads may still be writing when the test ends: they share the chunk (held by
  // value), never a local that dies first.
  const auto chunk = std::make_shared<const std::string>(64 * 1024, 'x');
  testutil::LocalServer s;
  s.http().Get("/claims", [chunk](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider(std::size_t{10} << 30, "application/json",
                             [chunk](std::size_t, std::size_t, httplib::DataSink& sink) {
                               return sink.write(chunk->data(), chunk->size());
                             });
  });
  s.http().Get("/chunked", [chunk](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [chunk](std::size_t offset, httplib::DataSink& sink) {
      if (offset >= (std::size_t{4} << 20)) {
        sink.done();
        return true;
      }
      return sink.write(chunk->data(), chunk->size());
    });
  });
  for (const char* path : {"/claims", "/chunked"}) {
    auto r = dcukit::util::http_request(
        {.url = s.url() + path, .timeout = testutil::kNoHang, .max_body = std::size_t{1} << 20});
    ASSERT_FALSE(r) << path << " was read whole";
    EXPECT_NE(r.error().message.find("1 MiB"), std::string::npos) << path << ": " << r.error().message;
  }
}
