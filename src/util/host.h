#pragma once
// Facts about this host recorded beside every measurement: name, OS, kernel, CPU, memory.
#include <cstdint>
#include <string>

namespace dcukit::util {

std::string hostname();
/// hostname() up to its first dot ("node07" of "node07.cluster.local"), as Slurm names nodes.
std::string short_hostname();
/// PRETTY_NAME from /etc/os-release, or "unknown".
std::string os_name();
/// The kernel release (uname -r).
std::string kernel_release();
/// The first "model name" of /proc/cpuinfo.
std::string cpu_model();
int cpu_count();
/// CPUs this process may run on (its affinity mask, as taskset and cgroup cpusets set it);
/// cpu_count() when the mask cannot be read.
int usable_cpu_count();
/// Raises the soft limit on open descriptors towards `wanted` (at most the hard limit) and
/// returns the soft limit now in force.
std::uint64_t raise_open_files_limit(std::uint64_t wanted);
std::uint64_t memory_total_bytes();
/// A /proc/meminfo field given in kB ("MemTotal", "MemAvailable"), in bytes; 0 when absent.
std::uint64_t meminfo_bytes(const std::string& key);
/// Now as ISO 8601 UTC: "2026-11-30T12:34:56Z".
std::string utc_timestamp();
/// Local time as vLLM names its result files: "20261204-190512" (%Y%m%d-%H%M%S).
std::string local_compact_timestamp();

}  // namespace dcukit::util
