#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>

#include "held_port.h"
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tempdir.h"
#include "util/procfs.h"

using namespace dcukit::util;
namespace fs = std::filesystem;

namespace {

std::string fmt_path(int pid, const char* leaf) {
  return "proc/" + std::to_string(pid) + "/" + leaf;
}

void fake_process(const testutil::TempDir& dir, int pid, int ppid, char state, const std::string& comm) {
  dir.write(fmt_path(pid, "stat"), std::to_string(pid) + " (" + comm + ") " + state + " " + std::to_string(ppid) + " " +
                                       std::to_string(pid) + " " + std::to_string(pid) + " 0 -1\n");
  dir.write(fmt_path(pid, "cmdline"), comm + std::string("\0--flag\0", 8));
}

}  // namespace

TEST(UtilProcfs, FindsTheListenerOfAPortThroughTheSocketInode) {
  testutil::TempDir dir("procfs");
  dir.write("proc/net/tcp",
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
            "   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 12345 1 0\n"
            "   1: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 777 1 0\n"
            "   2: 0100007F:1F41 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 999 1 0\n");
  dir.write("proc/net/tcp6",
            "  sl  local_address                         remote_address                        st ...\n"
            "   0: 00000000000000000000000001000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 "
            "00:00000000 00000000  1000        0 555 1 0\n");
  fake_process(dir, 42, 1, 'S', "vllm");
  fake_process(dir, 43, 1, 'S', "other");
  fs::create_directories(dir.file("proc/42/fd"));
  fs::create_directories(dir.file("proc/43/fd"));
  fs::create_symlink("socket:[12345]", dir.file("proc/42/fd/3"));
  fs::create_symlink("socket:[777]", dir.file("proc/43/fd/3"));  // a connection, not the listener
  fs::create_symlink("/dev/kfd", dir.file("proc/43/fd/4"));
  auto inodes = listening_socket_inodes(8000, Root(dir.path()));
  std::sort(inodes.begin(), inodes.end());
  EXPECT_EQ(inodes, (std::vector<std::uint64_t>{555, 12345}));
  EXPECT_EQ(port_listeners(8000, Root(dir.path())), std::vector<pid_t>{42});
  EXPECT_TRUE(port_listeners(8002, Root(dir.path())).empty());
  auto gpu = processes_holding(is_gpu_device_file, Root(dir.path()));
  ASSERT_EQ(gpu.size(), 1u);
  EXPECT_EQ(gpu[0].pid, 43);
  EXPECT_EQ(gpu[0].targets, std::vector<std::string>{"/dev/kfd"});
  // A Root that records (a support bundle's) keeps the matching descriptor, not every one listed.
  Root recording(dir.path());
  recording.record_to(std::make_shared<AccessLog>());
  ASSERT_EQ(processes_holding(is_gpu_device_file, recording).size(), 1u);
  std::vector<std::string> links;
  for (const auto& e : recording.log()->entries())
    if (e.kind == AccessLog::Kind::link && e.path.find("/fd/") != std::string::npos) links.push_back(e.path);
  EXPECT_EQ(links, std::vector<std::string>{"/proc/43/fd/4"});
  auto info = read_proc_info(42, Root(dir.path()));
  ASSERT_TRUE(info);
  EXPECT_EQ(info->comm, "vllm");
  EXPECT_EQ(info->cmdline, "vllm --flag");
  EXPECT_EQ(info->ppid, 1);
}

TEST(UtilProcfs, DescendantsFollowTheParentChainAndLeaveZombiesOut) {
  testutil::TempDir dir("procfs_tree");
  fake_process(dir, 50, 1, 'S', "guard");
  fake_process(dir, 7, 60, 'S', "grandchild");  // a lower pid than its parent: pids wrap
  fake_process(dir, 60, 50, 'S', "service");
  fake_process(dir, 61, 50, 'Z', "dead");
  fake_process(dir, 70, 1, 'S', "stranger");
  auto d = descendants_of(50, Root(dir.path()));
  std::vector<pid_t> pids;
  for (const auto& p : d) pids.push_back(p.pid);
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(pids, (std::vector<pid_t>{7, 60}));
}

TEST(UtilProcfs, SeesThisProcesssOwnListenerAndFiles) {
  testutil::HeldPort held;
  const int port = held.port();
  ASSERT_GT(port, 0);
  EXPECT_EQ(port_listeners(port), std::vector<pid_t>{getpid()});
  held.release();
  EXPECT_TRUE(listening_socket_inodes(port).empty());

  const SelfUsage before = self_usage();
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const SelfUsage after = self_usage();
  EXPECT_EQ(after.open_fds, before.open_fds + 1);
  EXPECT_GT(after.rss_bytes, 0u);
  EXPECT_GE(after.threads, 1);
  auto holders = processes_holding([](const std::string& t) { return t == "/dev/null"; });
  EXPECT_TRUE(std::any_of(holders.begin(), holders.end(), [](const Holder& h) { return h.pid == getpid(); }));
  close(fd);
}

TEST(UtilProcfs, KnowsTheGpuDeviceFiles) {
  for (const char* p :
       {"/dev/kfd", "/dev/dri/renderD128", "/dev/dri/card0", "/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"})
    EXPECT_TRUE(is_gpu_device_file(p)) << p;
  for (const char* p : {"/dev/null", "/dev/dri", "socket:[1]", "/home/kfd"}) EXPECT_FALSE(is_gpu_device_file(p)) << p;
}
