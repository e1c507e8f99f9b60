// util::Root: host paths read under a root folder, symlinks resolved inside it (absolute targets
// start again at the root, ".." stops at it), and the record of what was read.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tempdir.h"
#include "util/root.h"

using dcukit::util::AccessLog;
using dcukit::util::FileType;
using dcukit::util::Root;
namespace fs = std::filesystem;

namespace {

void put(const testutil::TempDir& d, const std::string& rel, const std::string& content) {
  d.write("root/" + rel, content);
}

void symlink_in(const testutil::TempDir& d, const std::string& rel, const std::string& target) {
  fs::create_directories(fs::path(d.file("root/" + rel)).parent_path());
  fs::create_symlink(target, d.file("root/" + rel));
}

}  // namespace

TEST(UtilRoot, ReadsHostPathsUnderTheRoot) {
  testutil::TempDir d("root");
  put(d, "etc/os-release", "PRETTY_NAME=\"Fake\"\nNAME=x\n");
  put(d, "sys/module/hycu/version", "6.3.28-V1.3.0b  \n");
  const Root r(d.file("root") + "/");
  EXPECT_EQ(r.dir(), d.file("root"));
  EXPECT_FALSE(r.is_host());
  EXPECT_EQ(r.read("/etc/os-release"), "PRETTY_NAME=\"Fake\"\nNAME=x\n");
  EXPECT_EQ(r.first_line("/sys/module/hycu/version"), "6.3.28-V1.3.0b");
  EXPECT_FALSE(r.read("/etc/missing").has_value());
  EXPECT_TRUE(r.exists("/etc/os-release"));
  EXPECT_TRUE(r.is_dir("/sys/module"));
  EXPECT_FALSE(r.is_dir("/etc/os-release"));
  EXPECT_EQ(r.list("/sys/module"), std::vector<std::string>{"hycu"});
  EXPECT_TRUE(r.list("/nowhere").empty());
  EXPECT_EQ(r.read("/etc/os-release", 4), "PRET");
  EXPECT_EQ(r.real("/etc/os-release"), d.file("root") + "/etc/os-release");
}

TEST(UtilRoot, AbsoluteSymlinksStayInsideTheRoot) {
  testutil::TempDir d("root");
  put(d, "opt/dtk-26.04/.info/version", "26.04\n");
  symlink_in(d, "opt/dtk", "/opt/dtk-26.04");                   // absolute: must not reach this machine's /opt
  symlink_in(d, "opt/rel", "dtk-26.04");                        // relative
  symlink_in(d, "etc/escape", "../../../../../../etc/passwd");  // ".." stops at the root
  put(d, "etc/passwd", "fake:x:0:0\n");
  const Root r(d.file("root"));
  EXPECT_EQ(r.resolve("/opt/dtk/.info/version"), "/opt/dtk-26.04/.info/version");
  EXPECT_EQ(r.resolve("/opt/rel/.info"), "/opt/dtk-26.04/.info");
  EXPECT_EQ(r.first_line("/opt/dtk/.info/version"), "26.04");
  EXPECT_EQ(r.resolve("/etc/escape"), "/etc/passwd");
  EXPECT_EQ(r.read("/etc/escape"), "fake:x:0:0\n");
  EXPECT_EQ(r.resolve("/opt/./dtk/../rel/missing/x"), "/opt/dtk-26.04/missing/x");
  EXPECT_EQ(r.read_link("/opt/dtk"), "/opt/dtk-26.04");
  EXPECT_FALSE(r.read_link("/opt/dtk-26.04").has_value());
}

TEST(UtilRoot, SymlinkLoopsEnd) {
  testutil::TempDir d("root");
  symlink_in(d, "a", "/b");
  symlink_in(d, "b", "/a");
  const Root r(d.file("root"));
  EXPECT_FALSE(r.read("/a").has_value());
  EXPECT_FALSE(r.exists("/a/x"));
}

TEST(UtilRoot, StatGlobAndLinksNotFollowed) {
  testutil::TempDir d("root");
  put(d, "dev/kfd", "");
  ::chmod(d.file("root/dev/kfd").c_str(), 0660);
  symlink_in(d, "proc/42/fd/3", "/dev/kfd");
  put(d, "etc/ld.so.conf.d/a.conf", "");
  put(d, "etc/ld.so.conf.d/b.conf", "");
  put(d, "etc/ld.so.conf.d/notes.txt", "");
  const Root r(d.file("root"));
  auto st = r.stat("/dev/kfd");
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->type, FileType::regular);
  EXPECT_EQ(st->mode, 0660u);
  EXPECT_EQ(st->uid, ::getuid());
  auto l = r.stat("/proc/42/fd/3", false);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->type, FileType::symlink);
  EXPECT_EQ(r.stat("/proc/42/fd/3")->type, FileType::regular);  // followed inside the root
  EXPECT_EQ(r.read_link("/proc/42/fd/3"), "/dev/kfd");
  EXPECT_EQ(r.glob("/etc/ld.so.conf.d", "*.conf"), (std::vector<std::string>{"a.conf", "b.conf"}));
}

TEST(UtilRoot, RecordsWhatWasRead) {
  testutil::TempDir d("root");
  put(d, "opt/dtk-26.04/.info/version", "26.04\n");
  symlink_in(d, "opt/dtk", "dtk-26.04");
  const Root plain(d.file("root"));
  Root r(d.file("root"));
  auto log = std::make_shared<AccessLog>();
  r.record_to(log);
  r.read("/opt/dtk/.info/version");
  r.list("/opt");
  r.read("/opt/missing");
  plain.read("/opt/dtk/.info/version");  // a Root without a log records nothing
  const auto e = log->entries();
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].kind, AccessLog::Kind::link);
  EXPECT_EQ(e[0].path, "/opt/dtk");
  EXPECT_EQ(e[0].target, "dtk-26.04");
  EXPECT_EQ(e[1].kind, AccessLog::Kind::file);
  EXPECT_EQ(e[1].path, "/opt/dtk-26.04/.info/version");
  EXPECT_EQ(e[2].kind, AccessLog::Kind::directory);
  EXPECT_EQ(e[2].path, "/opt");
}

TEST(UtilRoot, TheHostRootReadsThisMachine) {
  const Root r;
  EXPECT_TRUE(r.is_host());
  EXPECT_EQ(r.dir(), "/");
  EXPECT_EQ(r.real("/proc/self/status"), "/proc/self/status");
  EXPECT_TRUE(r.read("/proc/self/status").has_value());
  EXPECT_EQ(dcukit::util::join_path("/sys/", "/bus"), "/sys/bus");
}
