#include "doctor/context.h"

#include <numaif.h>
#include <unistd.h>

#include <algorithm>

#include "doctor/text.h"

extern char** environ;

namespace dcukit::doctor {

std::string Context::getenv(const std::string& name) const {
  auto it = env.find(name);
  return it == env.end() ? std::string() : it->second;
}

std::optional<util::FileInfo> Context::stat(const std::string& host_path) const {
  if (auto it = recorded_stats.find(host_path); it != recorded_stats.end()) return it->second;
  return root.stat(host_path);
}

bool Context::has(core::Vendor v) const {
  return std::any_of(scan.gpus.begin(), scan.gpus.end(), [&](const Gpu& g) { return g.vendor == v; });
}

Finding& add(std::vector<Finding>& out, Category c, std::string id, Verdict s, std::string summary) {
  Finding f;
  f.id = std::move(id);
  f.category = c;
  f.status = s;
  f.summary = std::move(summary);
  out.push_back(std::move(f));
  return out.back();
}

Identity live_identity(const util::Root& root) {
  Identity id;
  id.uid = ::getuid();
  id.gids.push_back(::getgid());
  gid_t groups[256];
  const int n = ::getgroups(256, groups);
  for (int i = 0; i < n; ++i)
    if (std::find(id.gids.begin(), id.gids.end(), groups[i]) == id.gids.end()) id.gids.push_back(groups[i]);
  for (const auto& line : lines(root.read("/etc/passwd").value_or(""))) {
    const auto f = split(line, ':', Empties::keep);
    if (f.size() > 2 && parse_int(f[2]) == static_cast<long long>(id.uid)) {
      id.user = f[0];
      break;
    }
  }
  if (id.user.empty()) id.user = "uid " + std::to_string(id.uid);
  return id;
}

std::optional<MemPolicy> live_mem_policy() {
  int mode = 0;
  unsigned long mask[16] = {};  // 1024 nodes
  if (::get_mempolicy(&mode, mask, sizeof(mask) * 8, nullptr, 0) != 0) return std::nullopt;
  MemPolicy p;
  switch (mode & 0xff) {  // the low bits are the mode; MPOL_F_STATIC_NODES and friends sit above
    case MPOL_DEFAULT:
      p.mode = "default";
      break;
    case MPOL_BIND:
      p.mode = "bind";
      break;
    case MPOL_PREFERRED:
      p.mode = "preferred";
      break;
    case MPOL_INTERLEAVE:
      p.mode = "interleave";
      break;
    case MPOL_LOCAL:
      p.mode = "local";
      break;
    default:
      p.mode = "other";
  }
  for (int node = 0; node < 1024; ++node)
    if (mask[node / 64] & (1UL << (node % 64))) p.nodes.push_back(node);
  return p;
}

std::map<std::string, std::string> live_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

std::map<unsigned, std::string> group_names(const util::Root& root) {
  std::map<unsigned, std::string> out;
  for (const auto& line : lines(root.read("/etc/group").value_or(""))) {
    const auto f = split(line, ':', Empties::keep);
    if (f.size() > 2)
      if (auto gid = parse_int(f[2]); gid && *gid >= 0) out[static_cast<unsigned>(*gid)] = f[0];
  }
  return out;
}

}  // namespace dcukit::doctor
