#pragma once
// One parser a captured format (internal to telemetry/; capture.h is the public entry). Each takes
// a cleaned Capture and returns what it could read: devices with their figures stamped with the
// tool that printed them, topology, checks, facts, and a warning for anything it had to skip.
// A parser never fails: a format it was handed by detection always yields a Snapshot.
#include <string>
#include <utility>
#include <vector>

#include "telemetry/text.h"
#include "telemetry/types.h"

namespace dcukit::telemetry::parse {

// hy-smi and rocm-smi (parse_smi_*.cpp)
Snapshot smi_table(const Capture& cap);   ///< "DCU Temp AvgPwr ..." / "HCU ... Dec% Enc%" / "Device Node IDs ..."
Snapshot smi_fields(const Capture& cap);  ///< "HCU[0] : PCI Bus: ..." views, with --showtopo's matrices
Snapshot smi_csv(const Capture& cap);     ///< rocm-smi/hy-smi --csv: "device,..." then "cardN,..."
Snapshot smi_json(const Capture& cap);    ///< {"card0": {...}} of hy-smi and rocm-smi --json, -a --json

// amd-smi (parse_amd_smi*.cpp)
Snapshot amd_smi_json(const Capture& cap);      ///< [{"gpu": 0, ...}] of metric/static/topology --json
Snapshot amd_smi_text(const Capture& cap);      ///< "GPU: 0" blocks of static and metric
Snapshot amd_smi_monitor(const Capture& cap);   ///< amd-smi monitor's table
Snapshot amd_smi_topology(const Capture& cap);  ///< "ACCESS TABLE:" ... matrices of amd-smi topology

// nvidia-smi (parse_nvidia_*.cpp)
Snapshot nvidia_smi_q(const Capture& cap);    ///< -q, whole or an excerpt of it
Snapshot nvidia_smi_xml(const Capture& cap);  ///< -q -x
Snapshot nvidia_smi_csv(const Capture& cap);  ///< --query-gpu=... --format=csv[,noheader][,nounits]
Snapshot nvidia_smi_table(const Capture& cap);
Snapshot nvidia_smi_dmon(const Capture& cap);
Snapshot nvidia_smi_list(const Capture& cap);  ///< -L
Snapshot nvidia_smi_topo(const Capture& cap);  ///< topo -m

// Others (parse_other*.cpp)
Snapshot rocminfo(const Capture& cap);
Snapshot dcgmi_diag(const Capture& cap);
Snapshot rvs(const Capture& cap);
Snapshot gpustack_json(const Capture& cap);
Snapshot lspci_lsmod(const Capture& cap);       ///< lspci [-vvv|-k|-t] and lsmod lines
Snapshot sysfs_transcript(const Capture& cap);  ///< "$ cat /sys/class/drm/card1/device/..." and the values
Snapshot pip_list(const Capture& cap);
Snapshot version_strings(const Capture& cap);
Snapshot no_device_state(const Capture& cap, const std::string& what);

// Shared by the parsers.

/// "text beside the hy-smi output: Error: ..." for a line the tool (or the shell) printed apart.
std::string stray_line(std::string_view tool, std::string_view line);
/// nvidia-smi's warning for a GPU with MIG on (-q and -q -x say the same).
std::string mig_warning(int gpu, int mig_devices);
/// The device with `index`, added (in order of first mention) when absent.
DeviceState& device_at(std::vector<DeviceState>& devices, int index);
/// Stamps every device's figures with `source` and fills what follows from others
/// (memory_used_percent from used/total).
void finish(Snapshot& s, SourceKind source);

/// rocm-smi/hy-smi "key: value" pairs of one device (fields view or JSON) applied to d.
void apply_smi_pairs(DeviceState& d, const std::vector<std::pair<std::string, std::string>>& pairs);
/// True when pairs carry hy-smi's marks (DCU/HCU use, a Hygon vendor string).
bool smi_pairs_look_hygon(const std::vector<std::pair<std::string, std::string>>& pairs);

/// A square table of values between labelled endpoints (rocm-smi --showtopo, amd-smi topology).
struct Matrix {
  std::string title;  ///< the heading above it, "Weight between two GPUs", "LINK TYPE TABLE"
  std::vector<std::string> labels;
  std::vector<std::vector<std::string>> cells;  ///< cells[row][col]
};
/// Every matrix in `lines` (a header of labels, then one row a label).
std::vector<Matrix> find_matrices(const std::vector<std::string>& lines);
/// Adds one link a pair of endpoints (row < col) with the matrices' values; endpoints are named
/// "GPU<i>" by their position in the labels.
void add_matrix_links(Topology& topo, const std::vector<Matrix>& matrices);

}  // namespace dcukit::telemetry::parse
