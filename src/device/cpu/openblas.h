#pragma once
// OpenBLAS, loaded at run time like every vendor library: linked in, its thread pool would start
// (and spin) in every dcukit process, `load` and `plan` included. Only the CPU backend's GEMM
// opens it, on first use. cblas.h gives the types; the functions come from dlsym.
#include <cblas.h>

#include <string>

#include "util/result.h"

namespace dcukit::device::cpu {

/// The entry points the CPU backend calls.
struct OpenBlas {
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_sgemm) sgemm = nullptr;
  std::string config;  ///< openblas_get_config(), e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."
};

/// Opens OpenBLAS once per process (thread-safe) and returns its entry points, or why it cannot:
/// the loader's message and the package to install.
const Result<OpenBlas>& openblas();

}  // namespace dcukit::device::cpu
