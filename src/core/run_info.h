#pragma once
// What every JSON report starts with: which tool and version ran, the command line, when, on
// which host, and the environment variables that change results (visible devices, dcukit's own
// switches, thread counts), so that a figure can always be traced to how it was made.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/launch.h"

namespace dcukit::core {

/// Facts about the host, recorded with every figure.
struct HostFacts {
  std::string hostname, os, kernel, cpu;
  int cpus = 0;
  int numa_nodes = 0;
  std::uint64_t memory_bytes = 0;
};

/// The header of a report.
struct RunInfo {
  std::string tool;        ///< "dcukit bench", "dcukit plan", ...
  std::string version;     ///< dcukit's version
  std::string command;     ///< the command line as typed
  std::string started_at;  ///< ISO 8601 UTC
  HostFacts host;
  std::vector<std::pair<std::string, std::string>> environment;  ///< results-changing variables that are set
  std::optional<Launch> launch;  ///< under mpirun or srun: this process's rank of the job
};

/// This host's facts (name, OS, kernel, CPU, memory, NUMA nodes).
HostFacts collect_host_facts();

/// A RunInfo for `tool` started now, with the command line and this host's facts.
RunInfo collect_run_info(const std::string& tool, const std::string& command);

/// True for the names of variables that change what dcukit measures or plans: DCUKIT_*,
/// *_VISIBLE_DEVICES, HSA_*, HIP_*, CUDA_* (but not paths), NCCL_*/RCCL_*, *_NUM_THREADS.
bool changes_results(const std::string& name);

/// The "run_info" object every JSON report starts with.
nlohmann::json to_json(const RunInfo& info);
/// The RunInfo of a report's "run_info" (what to_json wrote); a missing field stays empty.
RunInfo run_info_from_json(const nlohmann::json& j);

/// The head every JSON report starts with (docs/cli.md): {"run_info": ..., "schema_version": N}.
nlohmann::ordered_json report_head(const RunInfo& info, int schema_version);

}  // namespace dcukit::core
