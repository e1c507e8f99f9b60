#include "guard/stopper.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "util/procfs.h"

namespace dcukit::guard {
namespace {

using namespace std::chrono_literals;


bool alive(pid_t pid) {
  auto info = util::read_proc_info(pid);
  return info && info->state != 'Z';
}

/// Ends guard's own descendants that are not in the group any more (adopted after a double
/// fork): SIGTERM, a short grace, SIGKILL; reaps those that are our children.
std::vector<util::ProcInfo> outside_group(pid_t pgid) {
  auto all = util::descendants_of(getpid());
  std::erase_if(all, [&](const util::ProcInfo& p) { return p.pgid == pgid; });
  return all;
}

void end_descendants(std::vector<Escapee>& escaped, milliseconds grace, pid_t pgid) {
  auto found = outside_group(pgid);
  if (found.empty()) return;
  for (const auto& p : found) {
    escaped.push_back({p.pid, p.cmdline, "descendant", true, false});
    kill(p.pid, SIGTERM);
  }
  const auto until = Clock::now() + std::min<milliseconds>(grace, 2s);
  while (Clock::now() < until && !outside_group(pgid).empty()) {
    util::reap_children_except(pgid);
    std::this_thread::sleep_for(10ms);
  }
  for (int round = 0; round < 50; ++round) {  // at most ~1 s: children of the ended ones are adopted in turn
    auto left = outside_group(pgid);
    util::reap_children_except(pgid);
    if (left.empty()) break;
    for (const auto& p : left) {
      kill(p.pid, SIGKILL);
      if (std::none_of(escaped.begin(), escaped.end(), [&](const Escapee& e) { return e.pid == p.pid; }))
        escaped.push_back({p.pid, p.cmdline, "descendant", true, false});
    }
    std::this_thread::sleep_for(20ms);
  }
  util::reap_children_except(pgid);
}

void note_foreign(std::vector<Escapee>& escaped, pid_t pid, const char* how) {
  for (const auto& e : escaped)
    if (e.pid == pid) return;
  auto info = util::read_proc_info(pid);
  escaped.push_back({pid, info ? info->cmdline : "", how, false, false});
}

}  // namespace

bool StopOutcome::complete() const {
  if (!group_left.empty() || !port_free) return false;
  if (device && !device->released) return false;
  for (const auto& e : escaped)
    if (!e.ended) return false;
  return true;
}

std::set<pid_t> gpu_file_holders() {
  std::set<pid_t> out;
  for (const auto& h : util::processes_holding(util::is_gpu_device_file))
    if (h.pid != getpid()) out.insert(h.pid);
  return out;
}

StopOutcome stop_service(util::Process& process, const StopPlan& plan) {
  StopOutcome out;
  const auto start = Clock::now();
  const pid_t pgid = process.pid();
  auto group_gone = [&] { return !process.running() && util::process_group_members(pgid).empty(); };
  if (pgid > 0 && !group_gone()) {
    (void)process.signal_group(SIGTERM);
    const auto until = start + plan.drain;
    while (Clock::now() < until && !group_gone()) std::this_thread::sleep_for(10ms);
    if (!group_gone()) {
      out.killed = true;
      (void)process.signal_group(SIGKILL);
      const auto kill_until = Clock::now() + 5s;
      while (Clock::now() < kill_until && !group_gone()) std::this_thread::sleep_for(5ms);
    }
  }
  out.status = process.wait_for(0ms).value_or(util::ExitStatus{});
  if (pgid > 0) out.group_left = util::process_group_members(pgid);

  end_descendants(out.escaped, plan.drain, pgid);

  // The port and the device: wait for both within one deadline.
  const auto release_until = Clock::now() + plan.release_timeout;
  const auto release_start = Clock::now();
  if (plan.device && plan.read_memory && plan.device_baseline)
    out.device = DeviceRelease{.device = *plan.device, .baseline_bytes = *plan.device_baseline};
  for (;;) {
    out.port_holders = plan.port > 0 ? util::port_listeners(plan.port) : std::vector<pid_t>{};
    out.port_free = plan.port <= 0 || util::listening_socket_inodes(plan.port).empty();
    if (out.device) {
      auto m = plan.read_memory(*plan.device);
      if (m) {
        out.device->used_bytes = m->used_bytes;
        out.device->released = m->used_bytes <= out.device->baseline_bytes + plan.slack_bytes;
        out.device->error.clear();
      } else {
        out.device->error = m.error().message;
      }
      out.device->waited_seconds = seconds_since(release_start);
    }
    const bool device_done = !out.device || out.device->released;
    if ((out.port_free && device_done) || Clock::now() >= release_until) break;
    std::this_thread::sleep_for(50ms);
  }
  for (pid_t pid : out.port_holders) note_foreign(out.escaped, pid, "port");
  if (plan.device)
    for (pid_t pid : gpu_file_holders())
      if (!plan.device_holders_before.count(pid)) note_foreign(out.escaped, pid, "device");
  for (auto& e : out.escaped) e.ended = !alive(e.pid);
  out.seconds = seconds_since(start);
  return out;
}

}  // namespace dcukit::guard
