#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "no_hang.h"
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

namespace {

/// A raw TCP connection to the server, for clients that misbehave.
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// What the server sends before it closes (up to 10 s).
std::string read_all(int fd) {
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

TEST(UtilHttpServer, SlowClientsHoldNoWorkerAndAreCutOffAtTheRequestDeadline) {
  HttpServer s({.host = "127.0.0.1", .port = 0, .threads = 4, .io_timeout = 1500ms});
  s.get("/metrics", [](const HttpServerRequest&) { return HttpServerReply{200, "text/plain", "up 1\n"}; });
  ASSERT_TRUE(s.start());
  // Eight clients that send a byte at a time, as slowloris does: with four workers and only
  // per-read timeouts they stopped every scrape.
  std::vector<int> slow;
  for (int i = 0; i < 8; ++i) {
    const int fd = connect_to(s.port());
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::send(fd, "G", 1, MSG_NOSIGNAL), 1);
    slow.push_back(fd);
  }
  for (int i = 0; i < 3; ++i) {
    auto r = http_request({.url = url(s, "/metrics"), .timeout = 5s});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "up 1\n");
  }
  // A byte every 200 ms keeps every read within any per-read timeout; the whole request's
  // deadline still ends it.
  std::thread trickle([fd = slow[0]] {
    for (int i = 0; i < 40; ++i) {
      if (::send(fd, "E", 1, MSG_NOSIGNAL) != 1) return;
      std::this_thread::sleep_for(200ms);
    }
  });
  const std::string cut = read_all(slow[0]);
  trickle.join();
  EXPECT_NE(cut.find("408"), std::string::npos) << cut;
  for (int fd : slow) ::close(fd);
}

TEST(UtilHttpServer, OneAddressCannotTakeEveryConnection) {
  HttpServer s({.host = "127.0.0.1", .port = 0, .max_per_client = 3});
  s.get("/healthz", [](const HttpServerRequest&) { return HttpServerReply{200, "text/plain", "ok\n"}; });
  ASSERT_TRUE(s.start());
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(connect_to(s.port()));
  const auto until = std::chrono::steady_clock::now() + testutil::kNoHang;
  while (s.open_connections() < 3 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(s.open_connections(), 3u) << "the acceptor never took the three connections";
  const int extra = connect_to(s.port());
  ASSERT_GE(extra, 0);
  EXPECT_NE(read_all(extra).find("503"), std::string::npos);
  ::close(extra);
  for (int fd : idle) ::close(fd);
  // Their slots are free again once they close.
  bool served = false;
  for (int i = 0; i < 50 && !served; ++i) {
    auto r = http_request({.url = url(s, "/healthz"), .timeout = 5s});
    served = r && r->status == 200;
    if (!served) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(served);
}

TEST(UtilHttpServer, RequestHeadsAreParsedAndBadOnesRefused) {
  HttpServer s({.host = "127.0.0.1", .port = 0, .max_request_bytes = 1024});
  s.get("/x", [](const HttpServerRequest& r) {
    return HttpServerReply{200, "text/plain", r.params.count("a b") ? r.params.at("a b") : "-"};
  });
  ASSERT_TRUE(s.start());
  auto ask = [&](const std::string& head) {
    const int fd = connect_to(s.port());
    (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    std::string r = read_all(fd);
    ::close(fd);
    return r;
  };
  EXPECT_NE(ask("GET /x?a%20b=c+d HTTP/1.1\r\nHost: h\r\n\r\n").find("\r\n\r\nc d"), std::string::npos);
  EXPECT_NE(ask("POST /x HTTP/1.1\r\n\r\n").find("405"), std::string::npos);
  EXPECT_NE(ask("nonsense\r\n\r\n").find("400"), std::string::npos);
  EXPECT_NE(ask("GET /x HTTP/1.1\r\nX: " + std::string(4096, 'a')).find("431"), std::string::npos);
  const std::string head = ask("HEAD /x HTTP/1.1\r\n\r\n");
  EXPECT_NE(head.find("200 OK"), std::string::npos);
  EXPECT_EQ(head.find("\r\n\r\n-"), std::string::npos) << "HEAD has no body";
}
