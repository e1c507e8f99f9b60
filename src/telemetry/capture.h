#pragma once
// `dcukit telemetry --from FILE`: a captured output of a vendor tool (pasted into a ticket,
// collected in a support bundle) read into the same Snapshot as the live host. The format is
// detected from the content, so a user never says which tool made the file.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/text.h"
#include "telemetry/types.h"
#include "util/result.h"

namespace dcukit::telemetry {

/// The formats --from reads.
enum class Format {
  hy_smi_table,
  rocm_smi_table,
  smi_fields,
  smi_json,
  smi_csv,
  amd_smi_json,
  amd_smi_text,
  amd_smi_monitor,
  amd_smi_topology,
  nvidia_smi_q,
  nvidia_smi_xml,
  nvidia_smi_csv,
  nvidia_smi_table,
  nvidia_smi_dmon,
  nvidia_smi_list,
  nvidia_smi_topo,
  rocminfo,
  dcgmi_diag,
  rvs,
  rvs_docs,
  gpustack_json,
  lspci_lsmod,
  sysfs_transcript,
  pip_list,
  version_strings,
  notes,
};

/// "hy-smi table", "nvidia-smi -q", ...: what the report and the errors call a format.
std::string_view to_string(Format f);
/// Every format, for messages ("it reads: ...") and the docs.
const std::vector<Format>& known_formats();

/// The format of a cleaned capture, or nullopt when it is none of the known ones.
std::optional<Format> detect_format(const Capture& cap);
/// Reads `cap` as `format`.
Snapshot parse_capture(const Capture& cap, Format format);

/// Detects and reads `text` (named `name` in messages). The error names the input and the
/// formats known.
Result<Snapshot> read_capture_text(std::string_view text, const std::string& name);
/// Reads the file at `path`; errors name the path (unreadable, empty, unknown format).
Result<Snapshot> read_capture_file(const std::string& path);

}  // namespace dcukit::telemetry
