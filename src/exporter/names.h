#pragma once
// The device series under other exporters' names, so that their Grafana dashboards work
// unchanged (`dcukit exporter --names dcgm|amd`):
//  - dcgm: NVIDIA dcgm-exporter's fields (DCGM_FI_DEV_GPU_TEMP, ...) and labels (gpu, UUID,
//    pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION), in its units (MiB, MHz, %);
//  - amd: AMD device-metrics-exporter's (gpu_edge_temperature, ...) with its labels (gpu_id,
//    card_model, serial_number, hostname, cluster_name, gpu_uuid, ...), in its units (MB, MHz, %).
//    Its per-GPU dashboard keys every panel on gpu_uuid: where the tool shows no UUID (hy-smi's
//    tables), the serial number stands in, else the PCI address (unique on the host).
// Names and units from dcgm-exporter's etc/default-counters.csv and AMD's metrics list; the
// dashboards' queries run against this output in a real Prometheus in
// tests/integration/test_exporter_dashboards.cpp.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serving/prometheus.h"
#include "telemetry/types.h"

namespace dcukit::exporter {

enum class NameSet {
  dcukit,  ///< dcukit_gpu_* (the default)
  dcgm,    ///< NVIDIA dcgm-exporter's
  amd,     ///< AMD device-metrics-exporter's
};
std::optional<NameSet> parse_name_set(std::string_view s);
std::string_view to_string(NameSet n);

/// Who is speaking: the host's name (Kubernetes' NODE_NAME where set, as dcgm-exporter reads it)
/// and, for AMD's dashboards, the cluster's.
struct Identity {
  std::string hostname;
  std::string cluster = "default";
  /// The Slurm job(s) on each device, by index ("1234" or "1234,1240"), from the job-mapping
  /// folder: hpc_job on dcukit's and dcgm-exporter's series, job_id on AMD's.
  std::map<int, std::string> jobs;
  std::string job_of(int index) const {
    const auto it = jobs.find(index);
    return it == jobs.end() ? "" : it->second;
  }
};

/// The device series under dcgm-exporter's names.
void write_dcgm(serving::TextWriter& w, const std::vector<telemetry::DeviceState>& devices, const Identity& id);
/// The device series under AMD device-metrics-exporter's names.
void write_amd(serving::TextWriter& w, const std::vector<telemetry::DeviceState>& devices, const Identity& id);

/// dcgm-exporter's form of a PCI address: "00000000:05:00.0" (8 hex digits of domain, upper case).
std::string dcgm_bus_id(std::string_view bus_id);

}  // namespace dcukit::exporter
