#include "util/procfs.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <set>
#include <sstream>

namespace dcukit::util {
namespace {

std::optional<pid_t> as_pid(const std::string& name) {
  pid_t pid = 0;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (name.empty() || ec != std::errc() || ptr != name.data() + name.size() || pid <= 0) return std::nullopt;
  return pid;
}

std::string proc_path(pid_t pid, std::string_view file) {
  return "/proc/" + std::to_string(pid) + "/" + std::string(file);
}

/// The same tree, not recorded: for listings of every process and descriptor.
Root quiet(const Root& root) {
  Root out = root;
  out.record_to(nullptr);
  return out;
}

}  // namespace

std::optional<ProcInfo> read_proc_info(pid_t pid, const Root& root) {
  const std::string stat = root.read(proc_path(pid, "stat")).value_or("");
  const auto open = stat.find('(');
  const auto close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcInfo info;
  info.pid = pid;
  info.comm = stat.substr(open + 1, close - open - 1);
  int ppid = 0, pgid = 0, sid = 0;
  if (std::sscanf(stat.c_str() + close + 1, " %c %d %d %d", &info.state, &ppid, &pgid, &sid) != 4) return std::nullopt;
  info.ppid = ppid;
  info.pgid = pgid;
  info.sid = sid;
  std::string cmd = root.read(proc_path(pid, "cmdline")).value_or("");
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd)
    if (c == '\0') c = ' ';
  info.cmdline = std::move(cmd);
  return info;
}

std::vector<pid_t> list_pids(const Root& root) {
  std::vector<pid_t> out;
  for (const auto& name : quiet(root).list("/proc"))
    if (auto pid = as_pid(name)) out.push_back(*pid);
  return out;
}

std::vector<ProcInfo> descendants_of(pid_t ancestor, const Root& root) {
  std::vector<ProcInfo> all;
  for (pid_t pid : list_pids(root))
    if (auto info = read_proc_info(pid, root)) all.push_back(std::move(*info));
  std::set<pid_t> family{ancestor};
  std::vector<ProcInfo> out;
  // Parents before children is not guaranteed by pid order (pids wrap): repeat until stable.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& p : all)
      if (!family.count(p.pid) && family.count(p.ppid)) {
        family.insert(p.pid);
        grew = true;
        if (p.state != 'Z') out.push_back(p);
      }
  }
  return out;
}

std::vector<std::uint64_t> listening_socket_inodes(int port, const Root& root) {
  std::vector<std::uint64_t> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(root.read(table, std::size_t{64} << 20).value_or(""));
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) {
      // "  0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000 0 12345 ..."
      std::istringstream row(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, timeout;
      std::uint64_t inode = 0;
      if (!(row >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode)) continue;
      const auto colon = local.rfind(':');
      if (colon == std::string::npos || state != "0A") continue;  // 0A: TCP_LISTEN
      unsigned local_port = 0;
      const char* hex = local.c_str() + colon + 1;
      const auto [ptr, ec] = std::from_chars(hex, local.c_str() + local.size(), local_port, 16);
      if (ec == std::errc() && static_cast<int>(local_port) == port && inode != 0) inodes.push_back(inode);
    }
  }
  return inodes;
}

HolderScan scan_holders(const std::function<bool(const std::string&)>& match, const Root& root) {
  HolderScan out;
  const Root listing = quiet(root);
  for (pid_t pid : list_pids(root)) {
    Holder h{pid, {}, {}};
    const std::string dir = proc_path(pid, "fd");
    const auto fds = listing.list(dir);
    if (fds.empty() && ::access(root.real(dir).c_str(), R_OK | X_OK) != 0 && errno == EACCES) {
      ++out.unreadable;
      continue;
    }
    for (const auto& fd : fds) {
      const auto target = listing.read_link(dir + "/" + fd);
      if (!target || !match(*target)) continue;
      if (root.log()) root.log()->add(AccessLog::Kind::link, dir + "/" + fd, *target);
      h.targets.push_back(*target);
      h.fds.push_back(fd);
    }
    if (!h.targets.empty()) out.holders.push_back(std::move(h));
  }
  return out;
}

std::vector<Holder> processes_holding(const std::function<bool(const std::string&)>& match, const Root& root) {
  return scan_holders(match, root).holders;
}

std::vector<pid_t> port_listeners(int port, const Root& root) {
  const auto inodes = listening_socket_inodes(port, root);
  if (inodes.empty()) return {};
  std::set<std::string> wanted;
  for (auto inode : inodes) wanted.insert("socket:[" + std::to_string(inode) + "]");
  std::vector<pid_t> out;
  for (const auto& h : processes_holding([&](const std::string& t) { return wanted.count(t) > 0; }, root))
    out.push_back(h.pid);
  return out;
}

bool is_gpu_device_file(const std::string& path) {
  return path == "/dev/kfd" || path.rfind("/dev/dri/renderD", 0) == 0 || path.rfind("/dev/dri/card", 0) == 0 ||
         path.rfind("/dev/nvidia", 0) == 0;
}

SelfUsage self_usage(const Root& root) {
  SelfUsage u;
  u.open_fds = static_cast<int>(quiet(root).list("/proc/self/fd").size());
  if (root.is_host() && u.open_fds > 0) --u.open_fds;  // the descriptor the listing itself held
  std::istringstream in(root.read("/proc/self/status").value_or(""));
  std::string key;
  while (in >> key) {
    if (key == "VmRSS:") {
      std::uint64_t kb = 0;
      in >> kb;
      u.rss_bytes = kb * 1024;
    } else if (key == "Threads:") {
      in >> u.threads;
    }
    in.ignore(1 << 20, '\n');
  }
  return u;
}

}  // namespace dcukit::util
