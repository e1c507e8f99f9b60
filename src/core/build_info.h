// What this binary is: version, commit, build type, compiler and the GPU backends built, for
// `dcukit --version` and bug reports. The values come from the build (CMakeLists.txt,
// cmake/BuildInfo.cmake).
#pragma once

#include <string>

namespace dcukit::core {

struct BuildInfo {
  std::string version;       ///< "0.1.0"
  std::string commit;        ///< "68dd3cd0b1a2", "...-dirty", or "unknown" (no git at build time)
  std::string build_type;    ///< "RelWithDebInfo"
  std::string cxx_compiler;  ///< "GNU 12.2.0"
  std::string backends;      ///< "cuda (sm 80 90 100, nvcc 13.0.48), hip (gfx906 gfx90a, ...)", or ""
};

const BuildInfo& build_info();

/// The text of `dcukit --version`: the version line, then one "key: value" line a fact.
std::string version_text();

}  // namespace dcukit::core
