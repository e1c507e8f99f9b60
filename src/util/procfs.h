#pragma once
// What /proc says about processes, for a supervisor that must prove a service is gone: who
// listens on a TCP port (/proc/net/tcp{,6} -> socket inode -> /proc/*/fd), who holds a device
// file open (fuser's job), a process's parent, group and session, and this process's own open
// descriptors and memory (for soak tests). Every reader takes the host's Root (util/root.h), so
// that tests hand it a fake tree and a support bundle records what was read; the thousands of
// descriptor links are listed unrecorded and only the matches recorded. Processes whose /proc
// entries we may not read are skipped, not errors.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/root.h"

namespace dcukit::util {

/// One process as /proc/<pid>/stat and cmdline describe it.
struct ProcInfo {
  pid_t pid = 0, ppid = 0, pgid = 0, sid = 0;
  char state = '?';     ///< R, S, D, Z, T, ...
  std::string comm;     ///< the short name in /proc/<pid>/stat
  std::string cmdline;  ///< argv joined by spaces ("" for a kernel thread or a zombie)
};

/// The process `pid`, or nullopt when it does not exist (or has been reaped).
std::optional<ProcInfo> read_proc_info(pid_t pid, const Root& root = Root());

/// The living descendants of `ancestor` (children, their children, ...), zombies left out.
std::vector<ProcInfo> descendants_of(pid_t ancestor, const Root& root = Root());

/// Every process id in the root's /proc.
std::vector<pid_t> list_pids(const Root& root = Root());

/// The inodes of TCP sockets listening on `port` (IPv4 and IPv6), from /proc/net/tcp{,6}.
std::vector<std::uint64_t> listening_socket_inodes(int port, const Root& root = Root());

/// Processes with an open descriptor whose link target satisfies `match` (a path, or
/// "socket:[INODE]"), each with the matching targets. fuser, for any predicate.
struct Holder {
  pid_t pid = 0;
  std::vector<std::string> targets;
  std::vector<std::string> fds;  ///< the descriptor numbers of `targets`, in the same order
};
std::vector<Holder> processes_holding(const std::function<bool(const std::string&)>& match,
                                      const Root& root = Root());
/// processes_holding, and how many processes' descriptors this user may not list (another
/// user's, without root): a holder among them is not seen.
struct HolderScan {
  std::vector<Holder> holders;
  int unreadable = 0;
};
HolderScan scan_holders(const std::function<bool(const std::string&)>& match, const Root& root = Root());

/// The processes that hold a listening socket on `port`. A port may be in use by a process we
/// cannot see (another user's): then listening_socket_inodes() is non-empty and this is empty.
std::vector<pid_t> port_listeners(int port, const Root& root = Root());

/// True for the device files a GPU job holds open: /dev/kfd, /dev/dri/renderD*, /dev/dri/card*,
/// /dev/nvidia* (the DCU, ROCm and CUDA drivers' nodes).
bool is_gpu_device_file(const std::string& path);

/// This process's open descriptors and resident memory, from /proc/self.
struct SelfUsage {
  int open_fds = 0;
  std::uint64_t rss_bytes = 0;
  int threads = 0;
};
SelfUsage self_usage(const Root& root = Root());

}  // namespace dcukit::util
