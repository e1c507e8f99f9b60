#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "tempdir.h"
#include "util/sd_notify.h"

using namespace dcukit::util;

TEST(UtilSdNotify, SendsOneDatagramToTheNamedSocket) {
  testutil::TempDir dir("notify");
  const std::string path = dir.file("notify.sock");
  const int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  ASSERT_EQ(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_TRUE(sd_notify("READY=1\nSTATUS=up", path));
  char buf[256] = {};
  const ssize_t n = recv(s, buf, sizeof buf - 1, MSG_DONTWAIT);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "READY=1\nSTATUS=up");
  close(s);
}

TEST(UtilSdNotify, WithoutASocketItIsANoOpAndABadPathIsAnError) {
  const char* saved = getenv("NOTIFY_SOCKET");
  const std::string keep = saved ? saved : "";
  unsetenv("NOTIFY_SOCKET");
  EXPECT_TRUE(sd_notify("READY=1"));
  EXPECT_FALSE(sd_notify("READY=1", "relative/path"));
  EXPECT_FALSE(sd_notify("READY=1", "/nonexistent-dir/notify.sock"));
  if (saved) setenv("NOTIFY_SOCKET", keep.c_str(), 1);
}
