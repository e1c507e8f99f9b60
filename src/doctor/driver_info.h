#pragma once
// The kernel drivers of the GPUs as the kernel publishes them: /proc/modules (what lsmod
// prints), /sys/module/<name>/version (what modinfo reads for a loaded module) and
// /proc/driver/nvidia/version. Shared by the driver checks and the driver-vs-toolkit checks.
#include <string>
#include <string_view>
#include <vector>

#include "util/root.h"

namespace dcukit::doctor {

/// One module.
struct ModuleState {
  bool loaded = false;
  std::string version;  ///< /sys/module/<name>/version; "" when it publishes none
  std::vector<std::string> evidence;
};

/// Whether `name` is loaded (in /proc/modules, or built in: /sys/module/<name> exists) and its version.
ModuleState module_state(const util::Root& root, std::string_view name);

/// The NVIDIA driver: loaded, and its version from /proc/driver/nvidia/version.
ModuleState nvidia_driver(const util::Root& root);

/// Hygon's DCU driver: hycu (6.3 on) or hydcu (up to 6.2).
struct HygonDriver {
  std::string module;   ///< "hycu", "hydcu"; "" when neither is loaded
  std::string version;  ///< "6.3.28-V1.3.0b"
  bool both = false;    ///< both generations loaded at once
  std::vector<std::string> evidence;
};
HygonDriver hygon_driver(const util::Root& root);

/// The version in an NVRM banner: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15 ..." -> "550.54.15".
std::string nvrm_version(std::string_view banner);

}  // namespace dcukit::doctor
