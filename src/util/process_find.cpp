// Finding processes in /proc: by process group, and by a mark in the environment that every
// descendant inherits, even one that left its group and session with setsid.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "util/process.h"
#include "util/procfs.h"

namespace dcukit::util {

std::vector<pid_t> process_group_members(pid_t pgid) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    std::getline(in, stat);
    const auto close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) continue;
    char state = 0;
    int ppid = 0, pgrp = 0;
    if (std::sscanf(stat.c_str() + close_paren + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
        state != 'Z')
      out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

std::vector<pid_t> processes_with_env(const std::string& marker) {
  std::vector<pid_t> out;
  std::error_code ec;
  const pid_t self = getpid();
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    std::ifstream in(entry.path() / "environ", std::ios::binary);
    std::string item;
    while (std::getline(in, item, '\0'))
      if (item == marker) {
        out.push_back(pid);
        break;
      }
  }
  return out;
}

std::vector<pid_t> kill_marked(const std::string& marker, std::chrono::milliseconds wait) {
  // One scan can miss a process: one forked after /proc was listed, or one in execve, whose
  // environ reads empty for a moment. So scan, kill, and scan again until two scans in a row
  // find no marked process still running (or the wait is spent).
  auto ended = [](pid_t pid) {
    const auto info = read_proc_info(pid);
    return !info || info->state == 'Z';
  };
  std::vector<pid_t> killed;
  const auto until = std::chrono::steady_clock::now() + wait;
  for (int quiet_scans = 0; quiet_scans < 2;) {
    bool running = false;
    for (const pid_t pid : processes_with_env(marker)) {
      if (ended(pid)) continue;
      running = true;
      kill(pid, SIGKILL);
      if (std::find(killed.begin(), killed.end(), pid) == killed.end()) killed.push_back(pid);
    }
    quiet_scans = running ? 0 : quiet_scans + 1;
    if (std::chrono::steady_clock::now() >= until) break;
    if (quiet_scans < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return killed;
}

}  // namespace dcukit::util
