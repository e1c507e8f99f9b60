#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <filesystem>

#include "tempdir.h"
#include "util/files.h"

using namespace dcukit::util;
using dcukit::Status;

TEST(UtilFiles, WritesAndReadsBack) {
  testutil::TempDir dir("files");
  ASSERT_TRUE(write_file(dir.file("a.json"), "{}\n"));
  auto r = read_file(dir.file("a.json"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "{}\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);  // no temporary left
}

TEST(UtilFiles, ErrorsNameThePathAndTheFix) {
  testutil::TempDir dir("files");
  auto missing = read_file(dir.file("nope"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(dir.file("nope")), std::string::npos);
  const Status no_folder = write_file(dir.file("sub/out.json"), "x");
  ASSERT_FALSE(no_folder);
  EXPECT_NE(no_folder.message().find("does not exist; create it first"), std::string::npos);
  EXPECT_FALSE(check_writable(dir.path()));  // a folder is not a file
  EXPECT_TRUE(check_writable(dir.file("new.json")));
  auto big = read_file(dir.write("big", std::string(100, 'x')), 10);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("larger than 10 bytes"), std::string::npos);
}

TEST(UtilFiles, AFailedWriteKeepsThePreviousFile) {
  testutil::TempDir dir("files");
  const std::string path = dir.write("report.json", "good");
  // A file-size limit makes the write fail part-way, as a full disk does.
  signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  rlimit small = old;
  small.rlim_cur = 16;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const Status s = write_file(path, std::string(4096, 'x'));
  setrlimit(RLIMIT_FSIZE, &old);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("unchanged"), std::string::npos);
  EXPECT_EQ(dir.read("report.json"), "good");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}
