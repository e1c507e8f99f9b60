#pragma once
// `dcukit doctor --bundle FILE.tar.gz`: what support needs in one archive, like
// nvidia-bug-report.sh: doctor's report (JSON and text), every /proc, /sys and /etc file the
// checks read (under host/), the GPU device nodes' owners and modes, the vendor tools' own
// outputs (hy-smi, rocm-smi, rocminfo, nvidia-smi -q, nvidia-smi topo -m, lspci -vvv of the GPUs,
// the drivers' dmesg lines), pip list, the Python probe's answer and the environment with its
// secrets removed (under dcukit/). `--from-bundle` unpacks one and runs every check that can
// run offline on it, with the unpacked host/ as the root.
#include <chrono>
#include <string>
#include <vector>

#include "doctor/types.h"
#include "util/result.h"

namespace dcukit::doctor {

/// How to make a bundle.
struct BundleOptions {
  Request request;  ///< the live examination (its root must be "/")
  std::string output;
  std::chrono::milliseconds tool_timeout{20000};  ///< for each vendor tool
};

/// A bundle written.
struct BundleResult {
  Report report;
  std::size_t files = 0;           ///< members in the archive
  std::vector<std::string> tools;  ///< "hy-smi: ok", "nvidia-smi -q: not found"
};

/// Runs doctor on this host and writes the bundle; an error when it cannot be written.
Result<BundleResult> write_bundle(const BundleOptions& options);

/// Unpacks `path` into a fresh folder under $TMPDIR, runs doctor on it offline (with `base`'s
/// output settings) and removes the folder. Errors name the file and what is wrong with it.
Result<Report> run_from_bundle(const std::string& path, const Request& base);

/// The member names of a bundle's metadata, for tests and the docs.
inline constexpr const char* kBundleHostDir = "host";
inline constexpr const char* kBundleMetaDir = "dcukit";

}  // namespace dcukit::doctor
