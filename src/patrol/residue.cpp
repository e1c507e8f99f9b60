#include "patrol/residue.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "util/procfs.h"

namespace dcukit::patrol {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// "123 (python), 456 (vllm)".
std::string describe(const std::vector<pid_t>& pids, const util::Root& root) {
  std::string out;
  for (pid_t p : pids) {
    const auto info = util::read_proc_info(p, root);
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", p, info ? info->comm : "?");
  }
  return out;
}

/// Device-file holders: judged against the service when one is known. Returns the holders.
std::vector<pid_t> check_holders(const ResidueOptions& o, Report& r) {
  std::vector<pid_t> holders;
  for (const auto& h : util::processes_holding(util::is_gpu_device_file, o.root))
    if (h.pid != ::getpid()) holders.push_back(h.pid);
  r.perfdata.push_back({"device_processes", static_cast<double>(holders.size()), "", {}, {}, 0, {}});
  std::vector<pid_t> outside;
  for (pid_t p : holders)
    if (std::find(o.service.begin(), o.service.end(), p) == o.service.end()) outside.push_back(p);
  if (o.service.empty() || outside.empty()) {
    add(r, {"residue", "holders", State::ok,
            holders.empty()
                ? "no process holds a GPU device file"
                : fmt::format("{} processes hold GPU device files: {}", holders.size(), describe(holders, o.root))});
  } else {
    add(r, {"residue", "holders", State::warning,
            fmt::format("{} processes outside the service hold GPU device files: {} (left over from an earlier "
                        "run? they keep device memory)",
                        outside.size(), describe(outside, o.root))});
  }
  return holders;
}

}  // namespace

void check_residue(const std::vector<telemetry::DeviceState>& devices, const Thresholds& t, const ResidueOptions& o,
                   Report& r) {
  std::optional<std::vector<pid_t>> holders;
  if (o.live) holders = check_holders(o, r);
  for (const auto& d : devices) {
    if (!d.memory_used_bytes) continue;
    const Limit l = t.limit(Metric::residue_memory, d.vendor);
    const double mib = static_cast<double>(*d.memory_used_bytes) / kMiB;
    const State s = judge(mib, l);
    if (s == State::ok) continue;
    // Memory in use with no process: the driver lists none on the device, or (when it cannot
    // list them) no process on this host holds a device file at all.
    const bool none = d.processes ? d.processes->empty() : (holders && holders->empty());
    if (!none) continue;
    add(r, {"gpu" + std::to_string(d.index), "residue", s,
            fmt::format("{:.0f} MiB in use and no process {} (memory a crashed process left; seed 004: DCU memory "
                        "is not freed at once; it may belong to a process in another container)",
                        mib, d.processes ? "on the device" : "holds a device file")});
  }
}

}  // namespace dcukit::patrol
