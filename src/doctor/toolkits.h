#pragma once
// The GPU toolkits of a host: every DTK, ROCm and CUDA install under /opt and /usr/local or named
// by DTK_HOME, ROCM_PATH, CUDA_HOME, with its version; the hipcc and nvcc first on PATH; and the
// libamdhip64 and libcudart the dynamic loader would resolve (LD_LIBRARY_PATH, then ld.so.conf
// with its includes, then the default folders), each traced to the install it belongs to.
// Seed 004: "compiled with one version, running another" is found by comparing the two.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/names.h"
#include "util/root.h"

namespace dcukit::doctor {

/// What kind of toolkit an install is.
enum class ToolkitKind { dtk, rocm, cuda };
/// The one table between ToolkitKind and its name in findings.
inline constexpr util::Name<ToolkitKind> kToolkitKindNames[] = {
    {ToolkitKind::dtk, "DTK"}, {ToolkitKind::rocm, "ROCm"}, {ToolkitKind::cuda, "CUDA"}};
/// "DTK", "ROCm", "CUDA".
std::string_view to_string(ToolkitKind k);

/// One install.
struct Install {
  ToolkitKind kind = ToolkitKind::dtk;
  std::string path;                ///< the canonical host path: "/opt/dtk-26.04"
  std::vector<std::string> names;  ///< how it was found: "/opt/dtk", "/opt/dtk-26.04", "$DTK_HOME"
  std::string version;             ///< "26.04", "6.2.4", "12.4.1"; "" unknown
  std::string version_source;      ///< the file or name the version came from
  std::string hip_version;         ///< "6.2.0" (include/hip/hip_version.h); DTK and ROCm only
};

/// A program or library as found, and the install it lies in.
struct Located {
  std::string path;       ///< as found: "/opt/dtk/bin/hipcc"
  std::string canonical;  ///< symlinks resolved: "/opt/dtk-26.04/bin/hipcc"
  std::string via;        ///< "PATH", "LD_LIBRARY_PATH", "/etc/ld.so.conf.d/dtk.conf", "default folder"
  int install = -1;       ///< index into Toolkits::installs, -1 when in none
};

/// One folder the loader searches, and why.
struct LoaderDir {
  std::string dir;
  std::string via;
};

/// Everything discovered.
struct Toolkits {
  std::vector<Install> installs;
  std::optional<Located> hipcc, nvcc;
  std::optional<Located> hip_runtime;   ///< libamdhip64.so*
  std::optional<Located> cuda_runtime;  ///< libcudart.so*
  std::vector<LoaderDir> loader_dirs;   ///< the loader's search order
  /// Environment variables naming a folder that does not exist: name -> value.
  std::map<std::string, std::string> missing_env;

  /// The install a located item lies in, or nullptr.
  const Install* install_of(const std::optional<Located>& l) const;
};

/// The environment variables that name toolkit folders, in the order they are reported.
inline constexpr const char* kToolkitEnv[] = {"DTK_HOME", "ROCM_PATH", "ROCM_HOME",
                                              "HIP_PATH", "CUDA_HOME", "CUDA_PATH"};

/// Discovers the toolkits of the host under `root`, judged with the environment `env`.
Toolkits discover_toolkits(const util::Root& root, const std::map<std::string, std::string>& env);

/// The folders the loader searches, in order: LD_LIBRARY_PATH, ld.so.conf (includes followed),
/// then the default folders.
std::vector<LoaderDir> loader_search_path(const util::Root& root, const std::string& ld_library_path);

/// The first file named `stem` ("libamdhip64.so") or `stem.N...` in the loader's folders.
std::optional<Located> resolve_library(const util::Root& root, const std::vector<LoaderDir>& dirs,
                                       std::string_view stem);

/// The first executable `program` in the folders of `path` (colon-separated) under root.
std::optional<Located> find_on_path(const util::Root& root, const std::string& path, std::string_view program);

/// The version of a DTK from its folder name: "dtk-26.04-DCC2602-0317" -> "26.04", "dtk-25.04.4" -> "25.04.4".
std::string version_from_name(std::string_view name);

}  // namespace dcukit::doctor
