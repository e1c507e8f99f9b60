#include "device/cpu/openblas.h"

#include <fmt/format.h>

#include "util/dynlib.h"

namespace dcukit::device::cpu {
namespace {

// The threaded builds' sonames: Debian and Ubuntu (libopenblas0-pthread), EL (openblas-threads
// installs libopenblasp), then the development symlink.
constexpr const char* kNames[] = {"libopenblas.so.0", "libopenblasp.so.0", "libopenblas.so"};

Result<OpenBlas> load(util::DynLib& lib) {
  std::string tried;
  for (const char* name : kNames) {
    if (lib.open(name)) break;
    tried += fmt::format("\n  {}: {}", name, lib.error());
  }
  if (!lib.is_open()) {
    return Error{"OpenBLAS is not installed (apt install libopenblas0-pthread, or dnf install openblas-threads):" +
                 tried};
  }
  OpenBlas b;
  b.dgemm = reinterpret_cast<decltype(b.dgemm)>(lib.symbol("cblas_dgemm"));
  b.sgemm = reinterpret_cast<decltype(b.sgemm)>(lib.symbol("cblas_sgemm"));
  if (!b.dgemm || !b.sgemm) return Error{"OpenBLAS lacks cblas_dgemm/cblas_sgemm: " + lib.error()};
  using ConfigFn = char* (*)();
  if (auto* get_config = reinterpret_cast<ConfigFn>(lib.symbol("openblas_get_config"))) b.config = get_config();
  return b;
}

}  // namespace

const Result<OpenBlas>& openblas() {
  static util::DynLib lib;  // never closed: OpenBLAS's threads outlive any owner
  static const Result<OpenBlas> blas = load(lib);
  return blas;
}

}  // namespace dcukit::device::cpu
