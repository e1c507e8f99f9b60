// residue.*: what is left on the GPUs: processes holding /dev/kfd, /dev/dri/renderD* or
// /dev/nvidia* (found in /proc/*/fd, what `fuser /dev/dri/renderD*` does in seed 004's daily
// check), and device memory in use with no process holding the card. Seed 004: "DCU memory is not
// freed at once after a process dies; start new jobs on an idle card with HIP_VISIBLE_DEVICES".
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "core/units.h"
#include "doctor/checks.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

constexpr std::uint64_t kResidueBytes = 1ull << 30;  // an idle card keeps a few MiB for itself

struct Holder {
  long long pid = 0;
  std::string comm, state;
  std::set<std::string> nodes;  ///< "/dev/dri/renderD128", "/dev/kfd"
};

struct Scan {
  std::vector<Holder> holders;
  int unreadable = 0;
};

bool gpu_node(const std::string& target) {
  return starts_with(target, "/dev/kfd") || starts_with(target, "/dev/dri/renderD") ||
         starts_with(target, "/dev/dri/card") || starts_with(target, "/dev/nvidia");
}

Scan scan_holders(const Context& c) {
  Scan scan;
  const util::Root quiet(c.root.dir());  // thousands of fds: only the matches go into a bundle
  const auto self = quiet.read_link("/proc/self").value_or("");
  const std::string me = c.root.is_host() ? std::to_string(::getpid()) : self;
  for (const auto& pid : quiet.list("/proc")) {
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == me || pid == self) continue;
    const std::string dir = "/proc/" + pid + "/fd";
    const auto fds = quiet.list(dir);
    if (fds.empty()) {
      const auto st = quiet.stat("/proc/" + pid);
      if (st && st->uid != c.identity.uid && c.identity.uid != 0) ++scan.unreadable;
      continue;
    }
    Holder h;
    for (const auto& fd : fds) {
      const auto target = quiet.read_link(dir + "/" + fd);
      if (!target || !gpu_node(*target)) continue;
      h.nodes.insert(*target);
      if (c.root.log()) c.root.log()->add(util::AccessLog::Kind::link, dir + "/" + fd, *target);
    }
    if (h.nodes.empty()) continue;
    h.pid = parse_int(pid).value_or(0);
    h.comm = std::string(trim(c.root.read("/proc/" + pid + "/comm").value_or("?")));
    const auto status = key_values(c.root.read("/proc/" + pid + "/status").value_or(""));
    if (auto it = status.find("State"); it != status.end()) h.state = it->second;
    scan.holders.push_back(std::move(h));
  }
  return scan;
}

/// The holders of one GPU: those with one of its /dev/dri nodes (or its /dev/nvidiaN) open.
std::vector<const Holder*> holders_of(const Gpu& g, const Scan& scan, const Context& c) {
  std::vector<const Holder*> out;
  std::string nv;
  if (g.vendor == core::Vendor::nvidia) {
    if (auto text = c.root.read(fmt::format("/proc/driver/nvidia/gpus/{}/information", g.bus_id))) {
      const auto kv = key_values(*text);
      if (auto it = kv.find("Device Minor"); it != kv.end()) nv = "/dev/nvidia" + it->second;
    }
  }
  for (const auto& h : scan.holders) {
    bool mine = !nv.empty() && h.nodes.count(nv);
    for (const auto& n : g.nodes) mine = mine || h.nodes.count("/dev/dri/" + n);
    if (mine) out.push_back(&h);
  }
  return out;
}

std::string idle_cards(const Context& c, const Scan& scan) {
  std::vector<std::string> idle;
  int index = 0;
  for (const auto& g : c.scan.gpus) {
    if (g.vendor == core::Vendor::nvidia) continue;
    const bool busy =
        !holders_of(g, scan, c).empty() || (g.state.memory_used_bytes && *g.state.memory_used_bytes > kResidueBytes);
    if (!busy) idle.push_back(std::to_string(index));
    ++index;
  }
  if (index == 0) return {};
  return idle.empty() ? "no card is idle" : "export HIP_VISIBLE_DEVICES=" + fmt::format("{}", fmt::join(idle, ","));
}

void processes(const Context& c, const Scan& scan, std::vector<Finding>& out) {
  const std::string unseen =
      scan.unreadable > 0
          ? fmt::format(" ({} processes of other users not readable: run as root to see them)", scan.unreadable)
          : "";
  if (scan.holders.empty()) {
    add(out, Category::residue, "residue.processes", Verdict::ok, "no process holds a GPU device" + unseen).evidence = {
        "/proc/*/fd: no link to /dev/kfd, /dev/dri/* or /dev/nvidia*"};
    return;
  }
  std::vector<std::string> ev;
  std::vector<std::string> stuck, pids;
  for (const auto& h : scan.holders) {
    ev.push_back(fmt::format("pid {} ({}), state {}: {}", h.pid, h.comm, h.state.empty() ? "?" : h.state,
                             fmt::join(std::vector<std::string>(h.nodes.begin(), h.nodes.end()), ", ")));
    pids.push_back(std::to_string(h.pid));
    if (starts_with(h.state, "D") || starts_with(h.state, "Z")) stuck.push_back(std::to_string(h.pid));
  }
  const std::string idle = idle_cards(c, scan);
  if (!stuck.empty()) {
    auto& f = add(out, Category::residue, "residue.processes", Verdict::fail,
                  fmt::format("{} stuck process{} GPU devices (state D or Z)", stuck.size(),
                              stuck.size() == 1 ? " holds" : "es hold"));
    f.evidence = ev;
    f.why = "a process stuck in the driver keeps its device memory and may block the card until a reset";
    f.fix = fmt::format("sudo kill -9 {}   # if it stays, reset the card when idle; meanwhile: {}",
                        fmt::join(stuck, " "), idle.empty() ? "use another card" : idle);
    return;
  }
  auto& f = add(out, Category::residue, "residue.processes", Verdict::warn,
                fmt::format("{} process{} GPU devices{}", scan.holders.size(),
                            scan.holders.size() == 1 ? " holds" : "es hold", unseen));
  f.evidence = ev;
  f.why = "seed 004: a new job beside them competes for device memory; pick an idle card";
  f.fix = idle.empty() ? fmt::format("kill {}   # if they are leftovers", fmt::join(pids, " "))
                       : fmt::format("{}   # or stop them: kill {}", idle, fmt::join(pids, " "));
}

void memory(const Context& c, const Scan& scan, std::vector<Finding>& out) {
  int judged = 0;
  bool found = false;
  for (const auto& g : c.scan.gpus) {
    if (!g.state.memory_used_bytes) continue;
    ++judged;
    if (*g.state.memory_used_bytes <= kResidueBytes || !holders_of(g, scan, c).empty()) continue;
    if (scan.unreadable > 0) continue;  // an unseen process may hold it
    found = true;
    auto& f = add(out, Category::residue, "residue.memory", Verdict::warn,
                  fmt::format("{} of device memory in use with no process holding the card",
                              core::format_bytes(*g.state.memory_used_bytes)));
    f.subject = g.bus_id;
    f.evidence = {
        fmt::format(
            "{}: memory used {} bytes{}", g.bus_id, *g.state.memory_used_bytes,
            g.state.sources.count(telemetry::Field::memory_used_bytes)
                ? " (" + std::string(telemetry::to_string(g.state.sources.at(telemetry::Field::memory_used_bytes))) +
                      ")"
                : ""),
        fmt::format("/proc/*/fd: nobody has {} open", fmt::join(g.nodes, " or "))};
    f.why =
        "seed 004: DCU memory is not freed at once after a process dies ('进程异常退出后显存不会立刻释放'); a job "
        "started there runs out of memory";
    const std::string idle = idle_cards(c, scan);
    f.fix = fmt::format("{}   # or wait and look again; reset the card when it stays: sudo {} --gpureset -d <index>",
                        idle.empty() ? "use another card" : idle, c.has(core::Vendor::hygon) ? "hy-smi" : "rocm-smi");
  }
  if (found) return;
  if (judged == 0) {
    add(out, Category::residue, "residue.memory", Verdict::skip,
        "no card publishes its used memory in sysfs (NVIDIA: see nvidia-smi)");
    return;
  }
  if (scan.unreadable > 0) {
    add(out, Category::residue, "residue.memory", Verdict::skip,
        "other users' processes are not readable, so memory without a holder cannot be told apart: run as root");
    return;
  }
  add(out, Category::residue, "residue.memory", Verdict::ok, "no device memory without a process holding it");
}

}  // namespace

void check_residue(const Context& c, std::vector<Finding>& out) {
  const Scan scan = scan_holders(c);
  processes(c, scan, out);
  memory(c, scan, out);
}

}  // namespace dcukit::doctor
