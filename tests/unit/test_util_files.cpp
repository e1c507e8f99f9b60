#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

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
  auto big = read_file(dir.write("big", std::string(100, 'x')), {10, "a test input"});
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("larger than 10 bytes, the limit for a test input"), std::string::npos);
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

TEST(UtilFiles, OutputsReplaceOnlyRegularFiles) {
  testutil::TempDir dir("files");
  // A FIFO, a socket-like special file and a link named as an output are refused, untouched.
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const Status to_fifo = write_file(fifo, "x");
  ASSERT_FALSE(to_fifo);
  EXPECT_NE(to_fifo.message().find("is a FIFO; dcukit writes only regular files"), std::string::npos)
      << to_fifo.message();
  struct stat st {};
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO is still a FIFO";
  EXPECT_FALSE(check_writable("/dev/null")) << "a character device is never replaced";
  const std::string target = dir.write("target.json", "old");
  const std::string link = dir.file("link.json");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const Status to_link = write_file(link, "new");
  ASSERT_FALSE(to_link);
  EXPECT_NE(to_link.message().find("symbolic link"), std::string::npos) << to_link.message();
  EXPECT_EQ(*read_file(target), "old");
}

TEST(UtilFiles, AReplacedFileKeepsItsModeAndSecretsAreNotWorldReadable) {
  testutil::TempDir dir("files");
  const std::string kept = dir.write("kept.json", "a");
  ASSERT_EQ(chmod(kept.c_str(), 0600), 0);
  ASSERT_TRUE(write_file(kept, "b"));
  struct stat st {};
  ASSERT_EQ(stat(kept.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u) << "0600 stays 0600 (it became 0755/0644 before)";
  ASSERT_TRUE(write_file(dir.file("new.json"), "c"));
  ASSERT_EQ(stat(dir.file("new.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_TRUE(write_file(dir.file("bundle.tar.gz"), "d", Privacy::secret));
  ASSERT_EQ(stat(dir.file("bundle.tar.gz").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const std::string open_one = dir.write("events.jsonl", "e");
  ASSERT_EQ(chmod(open_one.c_str(), 0644), 0);
  ASSERT_TRUE(write_file(open_one, "f", Privacy::secret));
  ASSERT_EQ(stat(open_one.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 077, 0u) << "a secret loses group and other access";
}

TEST(UtilFiles, InputsAreRegularFilesAndTheirSizeIsCheckedFirst) {
  testutil::TempDir dir("files");
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // No writer: a blocking open or read would wait forever.
  auto r = read_file(fifo);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("is a FIFO, not a regular file"), std::string::npos) << r.error().message;
  EXPECT_FALSE(check_readable(fifo));
  auto dev = read_file("/dev/zero", kKernelFileInput);
  ASSERT_FALSE(dev) << "/dev/zero would grow without end";
  EXPECT_NE(dev.error().message.find("a character device"), std::string::npos) << dev.error().message;
  // A sparse 2 GiB file is refused by its size, before a byte is read.
  const std::string big = dir.file("big.txt");
  {
    FILE* f = std::fopen(big.c_str(), "w");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(ftruncate(fileno(f), off_t{2} << 30), 0);
    std::fclose(f);
  }
  auto large = read_file(big);
  ASSERT_FALSE(large);
  EXPECT_NE(large.error().message.find("larger than 64 MiB, the limit for a captured tool output"), std::string::npos)
      << large.error().message;
}
