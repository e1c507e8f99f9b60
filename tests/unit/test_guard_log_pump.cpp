#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "guard/log_pump.h"
#include "tempdir.h"
#include "util/process.h"
#include "no_hang.h"

using namespace dcukit;
using namespace dcukit::guard;
using namespace std::chrono_literals;

namespace {

bool wait_for_text(const testutil::TempDir& dir, const std::string& file, const std::string& text) {
  for (int i = 0; i < 1500; ++i) {  // 15 s: a loaded host runs the writer slowly
    if (dir.read(file).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST(GuardLogPump, AServicesOutputReachesTheLogAndTheTail) {
  testutil::TempDir dir("log_pump");
  LogPump pump(dir.file("service.log"), 1 << 20, 2);
  ASSERT_TRUE(pump.start());
  auto fd = pump.new_pipe();
  ASSERT_TRUE(fd);
  auto p = util::Process::spawn({.argv = {"sh", "-c", "echo to-stdout; echo to-stderr >&2"}, .output_fd = *fd});
  close(*fd);
  ASSERT_TRUE(p);
  p->wait_for(5s);
  EXPECT_TRUE(wait_for_text(dir, "service.log", "to-stderr"));
  EXPECT_NE(dir.read("service.log").find("to-stdout"), std::string::npos);
  pump.note("--- a note ---");
  EXPECT_NE(pump.tail().find("to-stderr\n--- a note ---\n"), std::string::npos) << pump.tail();
}

TEST(GuardLogPump, AnEscapedWriterCannotHoldThePumpAndRotationKeepsN) {
  testutil::TempDir dir("log_pump_rotate");
  LogPump pump(dir.file("s.log"), 2048, 1);
  ASSERT_TRUE(pump.start());
  auto fd = pump.new_pipe();
  ASSERT_TRUE(fd);
  // A writer that keeps the pipe open for 120 s (kStall) (like a double-forked grandchild). Its lines come
  // in two bursts a second apart, each past the 2 KiB limit: one write larger than the limit
  // goes whole into an empty file, and the second burst rotates it, however slowly the pump
  // reads (a sanitizer build read all 200 lines at once).
  auto p = util::Process::spawn(
      {.argv = {"sh", "-c",
                "i=0; while [ $i -lt 200 ]; do echo line-$i-xxxxxxxxxxxxxxxxxxxx; i=$((i+1)); "
                "if [ $i -eq 100 ]; then sleep 1; fi; done; sleep 120"},
       .output_fd = *fd});
  close(*fd);
  ASSERT_TRUE(p);
  EXPECT_TRUE(wait_for_text(dir, "s.log", "line-199"));
  const auto start = std::chrono::steady_clock::now();
  pump.drop_all_pipes();
  EXPECT_LT(std::chrono::steady_clock::now() - start, testutil::kNoHang);
  EXPECT_TRUE(std::filesystem::exists(dir.file("s.log.1")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.log.2")));
  p->stop(100ms);
}
