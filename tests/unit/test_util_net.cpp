#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/net.h"

using namespace dcukit::util;
using namespace std::chrono_literals;

TEST(UtilNet, ParsesHostPortForms) {
  auto a = parse_host_port("127.0.0.1:9401");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9401);
  auto b = parse_host_port("[::1]:8000");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 8000);
  auto c = parse_host_port(":0");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->host, "");
  for (const char* bad : {"127.0.0.1", "host:", "host:70000", "host:-1", "::1:80", "[::1]80", "h:8x"})
    EXPECT_FALSE(parse_host_port(bad)) << bad;
}

TEST(UtilNet, ReadsTheHostAndPortOfAUrl) {
  auto a = url_host_port("http://127.0.0.1:8000/v1/models");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8000);
  EXPECT_EQ(url_host_port("https://example.com/x")->port, 443);
  EXPECT_EQ(url_host_port("http://example.com")->port, 80);
  EXPECT_EQ(url_host_port("http://[::1]:9000")->host, "::1");
  EXPECT_EQ(url_host_port("http://[::1]")->port, 80);
  EXPECT_EQ(url_host_port("http://user:pw@h:81/")->port, 81);
  EXPECT_FALSE(url_host_port("ftp://h:21"));
  EXPECT_FALSE(url_host_port("http://"));
  // Malformed the ways users and scripts write them: each an error naming the URL.
  for (const char* bad : {"http://[::1", "http://[::1]x", "http://[]:80", "http://::1:8000", "http://h:99999",
                          "http://h:0", "http://h:-1", "http://h:80x", "http://:8000", "http://h st:80",
                          "http://h\x1b:80", "http://a]b:80"}) {
    auto r = url_host_port(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_NE(r.error().message.find("'http://"), std::string::npos) << r.error().message;
    }
  }
  auto secret = url_host_port("http://alice:s3cret@h:99999/");
  ASSERT_FALSE(secret);
  EXPECT_EQ(secret.error().message.find("s3cret"), std::string::npos) << secret.error().message;
}

TEST(UtilNet, KnowsLoopbackAddresses) {
  for (const char* h : {"localhost", "127.0.0.1", "127.1.2.3", "::1"}) EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"0.0.0.0", "", "10.0.0.1", "::", "example.com", "128.0.0.1"})
    EXPECT_FALSE(is_loopback_host(h)) << h;
}

TEST(UtilNet, TcpAcceptsSeesAListenerAndARefusal) {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  const int port = ntohs(a.sin_port);
  // Bound but not listening: refused.
  auto refused = tcp_accepts({"127.0.0.1", port}, 1s);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find(std::to_string(port)), std::string::npos);
  ASSERT_EQ(listen(s, 4), 0);
  EXPECT_TRUE(tcp_accepts({"127.0.0.1", port}, 1s)) << tcp_accepts({"127.0.0.1", port}, 1s).message();
  close(s);
}
