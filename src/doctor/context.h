#pragma once
// What every check reads: the host tree (util::Root), the environment judged, who runs doctor,
// the GPUs, the toolkits and the Python stack, each gathered once before the checks run.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/driver_info.h"
#include "doctor/gpus.h"
#include "doctor/toolkits.h"
#include "doctor/types.h"
#include "stack/python.h"
#include "util/result.h"
#include "util/root.h"

namespace dcukit::doctor {

/// The gathered facts.
struct Context {
  util::Root root;
  std::map<std::string, std::string> env;
  Identity identity;
  std::optional<MemPolicy> mem_policy;  ///< unknown offline
  GpuScan scan;
  Toolkits toolkits;
  /// The Python probe's answer or why there is none; nullopt when it was not asked.
  std::optional<Result<stack::PythonStack>> python;
  std::string python_skip;                               ///< why the probe was not asked
  bool offline = false;                                  ///< a fake host or a bundle: nothing live may be asked
  std::map<std::string, util::FileInfo> recorded_stats;  ///< see Request::recorded_stats
  /// The NVIDIA driver a pasted collect_env states (doctor --from), used instead of the root's.
  std::optional<ModuleState> stated_nvidia;

  /// The NVIDIA driver: the stated one, else the root's /proc/driver/nvidia/version.
  ModuleState nvidia() const { return stated_nvidia ? *stated_nvidia : nvidia_driver(root); }

  /// The variable's value, or "" when unset.
  std::string getenv(const std::string& name) const;
  /// stat() of a host path, or its recorded facts.
  std::optional<util::FileInfo> stat(const std::string& host_path) const;
  /// True when a GPU of this vendor is on the PCI bus.
  bool has(core::Vendor v) const;
  /// True when the host's GPUs are AMD or Hygon only (HIP hosts).
  bool hip_host() const { return (has(core::Vendor::amd) || has(core::Vendor::hygon)) && !has(core::Vendor::nvidia); }
};

/// Appends one finding (the checks' shorthand).
Finding& add(std::vector<Finding>& out, Category c, std::string id, Verdict s, std::string summary);

/// Who this process is (uid, groups, name from the root's /etc/passwd).
Identity live_identity(const util::Root& root);
/// This process's memory policy (get_mempolicy); nullopt when it cannot be read.
std::optional<MemPolicy> live_mem_policy();
/// This process's environment.
std::map<std::string, std::string> live_environment();

/// Group ids to names from the root's /etc/group.
std::map<unsigned, std::string> group_names(const util::Root& root);

}  // namespace dcukit::doctor
