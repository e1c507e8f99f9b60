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

/// Runs doctor on this host (request.root must be "/") and writes request.bundle: the Report
/// with its bundle member set (files, tools, or why it could not be written).
Report write_bundle(const Request& request);

/// Unpacks `path` into a fresh folder under $TMPDIR, runs doctor on it offline (with `base`'s
/// settings, its root, environment, identity and Python replaced by the bundle's) and removes the
/// folder. Errors name the file and what is wrong with it.
Result<Report> run_from_bundle(const std::string& path, const Request& base);

/// The member names of a bundle's metadata, for tests and the docs.
inline constexpr const char* kBundleHostDir = "host";
inline constexpr const char* kBundleMetaDir = "dcukit";

}  // namespace dcukit::doctor
