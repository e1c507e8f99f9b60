#include "util/procfs.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace dcukit::util {
namespace fs = std::filesystem;
namespace {

std::optional<pid_t> as_pid(const std::string& name) {
  pid_t pid = 0;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (name.empty() || ec != std::errc() || ptr != name.data() + name.size() || pid <= 0) return std::nullopt;
  return pid;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<ProcInfo> read_proc_info(pid_t pid, const std::string& proc) {
  const fs::path dir = fs::path(proc) / std::to_string(pid);
  const std::string stat = slurp(dir / "stat");
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
  std::string cmd = slurp(dir / "cmdline");
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  for (char& c : cmd)
    if (c == '\0') c = ' ';
  info.cmdline = std::move(cmd);
  return info;
}

std::vector<pid_t> list_pids(const std::string& proc) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(proc, ec))
    if (auto pid = as_pid(entry.path().filename().string())) out.push_back(*pid);
  return out;
}

std::vector<ProcInfo> descendants_of(pid_t ancestor, const std::string& proc) {
  std::vector<ProcInfo> all;
  for (pid_t pid : list_pids(proc))
    if (auto info = read_proc_info(pid, proc)) all.push_back(std::move(*info));
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

std::vector<std::uint64_t> listening_socket_inodes(int port, const std::string& proc) {
  std::vector<std::uint64_t> inodes;
  for (const char* table : {"net/tcp", "net/tcp6"}) {
    std::ifstream in(fs::path(proc) / table);
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

std::vector<Holder> processes_holding(const std::function<bool(const std::string&)>& match, const std::string& proc) {
  std::vector<Holder> out;
  for (pid_t pid : list_pids(proc)) {
    Holder h{pid, {}};
    std::error_code ec;
    for (const auto& fd : fs::directory_iterator(fs::path(proc) / std::to_string(pid) / "fd", ec)) {
      std::error_code link_ec;
      const auto target = fs::read_symlink(fd.path(), link_ec);
      if (!link_ec && match(target.string())) h.targets.push_back(target.string());
    }
    if (!h.targets.empty()) out.push_back(std::move(h));
  }
  return out;
}

std::vector<pid_t> port_listeners(int port, const std::string& proc) {
  const auto inodes = listening_socket_inodes(port, proc);
  if (inodes.empty()) return {};
  std::set<std::string> wanted;
  for (auto inode : inodes) wanted.insert("socket:[" + std::to_string(inode) + "]");
  std::vector<pid_t> out;
  for (const auto& h : processes_holding([&](const std::string& t) { return wanted.count(t) > 0; }, proc))
    out.push_back(h.pid);
  return out;
}

bool is_gpu_device_file(const std::string& path) {
  return path == "/dev/kfd" || path.rfind("/dev/dri/renderD", 0) == 0 || path.rfind("/dev/dri/card", 0) == 0 ||
         path.rfind("/dev/nvidia", 0) == 0;
}

SelfUsage self_usage(const std::string& proc) {
  SelfUsage u;
  std::error_code ec;
  for (auto it = fs::directory_iterator(fs::path(proc) / "self" / "fd", ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    ++u.open_fds;
  if (proc == "/proc" && u.open_fds > 0) --u.open_fds;  // the descriptor the listing itself held
  std::ifstream in(fs::path(proc) / "self" / "status");
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
