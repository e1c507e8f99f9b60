#pragma once
// The rocm_smi library (AMD's, DTK's, or HyHAL's on a Hygon host), loaded at run time: the same
// calls rocm-smi and hy-smi make, without starting them, plus the processes using each device.
#include <memory>
#include <optional>
#include <string>

#include "telemetry/rsmi_api.h"
#include "telemetry/source.h"
#include "util/root.h"

namespace dcukit::telemetry {

class RsmiSource : public Source {
public:
  /// Looks for librocm_smi64 (rsmi::library_candidates) on the first sample.
  explicit RsmiSource(util::Root root = util::Root()) : m_root(std::move(root)) {}
  /// Uses `api` as it is, without loading a library (tests pass fakes).
  explicit RsmiSource(const rsmi::Api& api);
  /// Calls rsmi_shut_down when rsmi_init succeeded.
  ~RsmiSource() override;
  RsmiSource(const RsmiSource&) = delete;
  RsmiSource& operator=(const RsmiSource&) = delete;

  std::string name() const override { return "rocm_smi_lib"; }
  SourceSample sample(const Snapshot& so_far) override;

private:
  dcukit::Status open();
  DeviceState read_device(std::uint32_t index, std::vector<std::string>& warnings);
  void read_processes(std::vector<DeviceState>& devices);

  util::Root m_root;
  std::unique_ptr<util::DynLib> m_lib;
  std::string m_path;
  rsmi::Api m_api;
  bool m_given = false, m_tried = false, m_initialized = false;
  std::optional<std::string> m_unavailable;
};

}  // namespace dcukit::telemetry
