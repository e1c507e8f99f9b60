#include "core/run_info.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "util/host.h"
#include "util/json_text.h"
#include "util/numa.h"
#include "util/redact.h"

extern char** environ;

namespace dcukit::core {
namespace {

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool changes_results(const std::string& name) {
  // Paths say where a toolkit is, not how it runs; doctor reports them. Secrets never belong here.
  if (ends_with(name, "_PATH") || ends_with(name, "_HOME") || ends_with(name, "_DIR")) return false;
  if (name.find("KEY") != std::string::npos || name.find("TOKEN") != std::string::npos ||
      name.find("SECRET") != std::string::npos || name.find("PASSWORD") != std::string::npos)
    return false;
  for (const char* p : {"DCUKIT_", "HSA_", "HIP_", "CUDA_", "NCCL_", "RCCL_", "ROCR_", "ROCBLAS_", "HIPBLASLT_",
                        "CUBLAS_", "CUBLASLT_", "MIOPEN_", "GPU_", "VLLM_"})
    if (starts_with(name, p)) return true;
  return ends_with(name, "_VISIBLE_DEVICES") || ends_with(name, "_NUM_THREADS");
}

HostFacts collect_host_facts() {
  HostFacts h;
  h.hostname = util::hostname();
  h.os = util::os_name();
  h.kernel = util::kernel_release();
  h.cpu = util::cpu_model();
  h.cpus = util::cpu_count();
  h.numa_nodes = static_cast<int>(util::numa_memory_nodes().size());
  h.memory_bytes = util::memory_total_bytes();
  return h;
}

RunInfo collect_run_info(const std::string& tool, const std::string& command) {
  RunInfo r;
  r.tool = tool;
  r.version = DCUKIT_VERSION;
  r.command = util::redact(command);  // -H 'Authorization: Bearer ...', ?api_key=, user:pw@
  r.started_at = util::utc_timestamp();
  r.host = collect_host_facts();
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (changes_results(name)) r.environment.emplace_back(name, util::redact(entry.substr(eq + 1)));
  }
  std::sort(r.environment.begin(), r.environment.end());
  r.launch = launch_from_environment();
  return r;
}

nlohmann::json to_json(const RunInfo& r) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [k, v] : r.environment) env[k] = v;
  nlohmann::json j = {{"tool", r.tool},
          {"dcukit_version", r.version},
          {"command", r.command},
          {"started_at", r.started_at},
          {"host",
           {{"hostname", r.host.hostname},
            {"os", r.host.os},
            {"kernel", r.host.kernel},
            {"cpu", r.host.cpu},
            {"cpus", r.host.cpus},
            {"numa_nodes", r.host.numa_nodes},
            {"memory_bytes", r.host.memory_bytes}}},
          {"environment", env}};
  if (r.launch)
    j["launch"] = {{"rank", r.launch->rank},
                   {"size", r.launch->size},
                   {"local_rank", r.launch->local_rank},
                   {"launcher", r.launch->launcher}};
  return j;
}

RunInfo run_info_from_json(const nlohmann::json& j) {
  RunInfo r;
  if (!j.is_object()) return r;
  const auto& str = util::string_at;
  const auto& num = util::number_at;
  r.tool = str(j, "tool");
  r.version = str(j, "dcukit_version");
  r.command = str(j, "command");
  r.started_at = str(j, "started_at");
  if (j.contains("host") && j["host"].is_object()) {
    const auto& h = j["host"];
    r.host.hostname = str(h, "hostname");
    r.host.os = str(h, "os");
    r.host.kernel = str(h, "kernel");
    r.host.cpu = str(h, "cpu");
    r.host.cpus = static_cast<int>(num(h, "cpus"));
    r.host.numa_nodes = static_cast<int>(num(h, "numa_nodes"));
    r.host.memory_bytes = static_cast<std::uint64_t>(num(h, "memory_bytes"));
  }
  if (j.contains("environment") && j["environment"].is_object())
    for (const auto& [k, v] : j["environment"].items())
      if (v.is_string()) r.environment.emplace_back(k, v.get<std::string>());
  if (j.contains("launch") && j["launch"].is_object()) {
    const auto& l = j["launch"];
    r.launch = Launch{static_cast<int>(num(l, "rank")), static_cast<int>(num(l, "size")),
                      static_cast<int>(num(l, "local_rank")), str(l, "launcher")};
  }
  return r;
}

nlohmann::ordered_json report_head(const RunInfo& info, int schema_version) {
  nlohmann::ordered_json j;
  j["run_info"] = nlohmann::ordered_json(to_json(info));
  j["schema_version"] = schema_version;
  return j;
}

}  // namespace dcukit::core
