#pragma once
// NVML, loaded at run time from libnvidia-ml.so.1: what nvidia-smi itself reads, without
// starting a process. NVML_ERROR_NOT_SUPPORTED (ECC on a consumer card, power on some boards)
// leaves that figure null; any other error on a figure becomes a warning naming the call.
#include <memory>
#include <optional>
#include <string>

#include "telemetry/links.h"
#include "telemetry/nvml_api.h"
#include "telemetry/source.h"

namespace dcukit::telemetry {

class NvmlSource : public Source {
public:
  /// Loads libnvidia-ml.so.1 (then libnvidia-ml.so) on the first sample.
  NvmlSource() = default;
  /// Uses `api` as it is, without loading a library (tests pass fakes).
  explicit NvmlSource(const nvml::Api& api);
  /// Calls nvmlShutdown when nvmlInit succeeded.
  ~NvmlSource() override;
  NvmlSource(const NvmlSource&) = delete;
  NvmlSource& operator=(const NvmlSource&) = delete;

  std::string name() const override { return "nvml"; }
  SourceSample sample(const Snapshot& so_far) override;
  /// The links between this host's NVIDIA GPUs (links.h), read once: none where libnvidia-ml is
  /// not installed, a warning where it is but cannot be used.
  const LinkReading& links();

private:
  /// Loads and initialises once; the error says why NVML cannot be used.
  Status open();
  DeviceState read_device(unsigned int index, std::vector<std::string>& warnings);

  std::unique_ptr<util::DynLib> m_lib;
  nvml::Api m_api;
  bool m_given = false, m_tried = false, m_initialized = false;
  std::optional<std::string> m_unavailable;
  std::optional<std::string> m_driver_version;
  std::optional<LinkReading> m_links;  ///< read on the first call of links()
};

}  // namespace dcukit::telemetry
