#pragma once
// Where telemetry, the exporter and patrol read the devices from, the same four flags in each:
// --from FILE (a captured tool output), --source (one live source), --root DIR and --timeout.
#include <string>

#include "telemetry/collector.h"
#include "util/result.h"

namespace CLI {
class App;
}

namespace dcukit::cli {

struct SourceFlags {
  std::string from;             ///< --from: a captured hy-smi, rocm-smi, amd-smi or nvidia-smi output
  std::string source = "auto";  ///< --source: auto, nvml, rocm-smi-lib, sysfs, cli
  std::string root = "/";       ///< --root: where /sys and /proc are read
  double timeout_s = 5;         ///< --timeout: the most one source may take for one reading
};

/// Adds --from (described by `from_help`), --source, --root and --timeout (default
/// `f.timeout_s`) to `sub`; CLI11 checks each value.
void add_source_options(CLI::App* sub, SourceFlags& f, const std::string& from_help);

/// The live sources' options; an error when the flags contradict each other (--source with
/// --from: a file is read, not a source).
Result<telemetry::CollectOptions> collect_options(const SourceFlags& f);

}  // namespace dcukit::cli
