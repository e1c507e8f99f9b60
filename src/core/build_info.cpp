#include "core/build_info.h"

#include <fmt/format.h>

#include "generated/build_config.h"

namespace dcukit::core {

const char* build_commit();  // generated/build_commit.cpp, rewritten by each build

const BuildInfo& build_info() {
  static const BuildInfo info{DCUKIT_VERSION, build_commit(), DCUKIT_BUILD_TYPE, DCUKIT_CXX_COMPILER,
                              DCUKIT_GPU_BACKENDS};
  return info;
}

std::string version_text() {
  const BuildInfo& b = build_info();
  return fmt::format("dcukit {}\ncommit: {}\nbuild: {}\ncompiler: {}\nbackends: cpu{}{}", b.version, b.commit,
                     b.build_type.empty() ? "unspecified" : b.build_type, b.cxx_compiler,
                     b.backends.empty() ? "" : ", ", b.backends);
}

}  // namespace dcukit::core
