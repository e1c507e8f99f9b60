#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tempdir.h"
#include "util/rotating_file.h"

using namespace dcukit::util;

TEST(UtilRotatingFile, RotatesBySizeAndKeepsN) {
  testutil::TempDir dir("rotate");
  const std::string path = dir.file("service.log");
  RotatingFile f(path, 1024, 2);
  ASSERT_TRUE(f.open());
  const std::string line(99, 'x');
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(f.write(line + "\n"));  // 6000 bytes: five rotations
  namespace fs = std::filesystem;
  EXPECT_TRUE(fs::exists(path));
  EXPECT_TRUE(fs::exists(path + ".1"));
  EXPECT_TRUE(fs::exists(path + ".2"));
  EXPECT_FALSE(fs::exists(path + ".3"));
  EXPECT_LE(fs::file_size(path), 1024u);
  EXPECT_LE(fs::file_size(path + ".1"), 1024u);
  EXPECT_GE(f.rotations(), 5u);
}

TEST(UtilRotatingFile, KeepsTheLastLinesIncludingAnUnfinishedOne) {
  testutil::TempDir dir("rotate_tail");
  RotatingFile f(dir.file("x.log"), 1 << 20, 1, 3);
  ASSERT_TRUE(f.write("one\ntwo\nthree\nfou"));
  ASSERT_TRUE(f.write("r\nfive"));
  EXPECT_EQ(f.tail(), "three\nfour\nfive");
  EXPECT_EQ(dir.read("x.log"), "one\ntwo\nthree\nfour\nfive");
}

TEST(UtilRotatingFile, AppendsToAnExistingFileAndCountsItsSize) {
  testutil::TempDir dir("rotate_append");
  const std::string path = dir.write("a.log", std::string(1000, 'a'));
  RotatingFile f(path, 1024, 1);
  ASSERT_TRUE(f.write(std::string(100, 'b')));  // would pass 1024: the old content moves to .1
  EXPECT_EQ(dir.read("a.log"), std::string(100, 'b'));
  EXPECT_EQ(dir.read("a.log.1"), std::string(1000, 'a'));
}

TEST(UtilRotatingFile, AnUnwritableFolderIsAnErrorNamingThePath) {
  RotatingFile f("/nonexistent-dir/x.log", 4096, 1);
  auto st = f.open();
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("/nonexistent-dir/x.log"), std::string::npos);
}
