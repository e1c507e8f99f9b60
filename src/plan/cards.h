#pragma once
// The cards a plan is for: named from the peak data (--gpu NAME) or detected on this host.
// Plans assume identical cards; a host with mixed cards is planned for the smallest.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/peaks.h"
#include "util/result.h"

namespace dcukit::device {
struct DetectedDevice;
}

namespace dcukit::plan {

/// What plan needs to know of the cards.
struct Cards {
  std::string name;    ///< "Hygon BW1000"
  std::string key;     ///< "bw1000"; empty for a card the peak data does not know
  core::Vendor vendor = core::Vendor::nvidia;
  std::optional<bool> bf16, fp8;  ///< empty where nobody has published it
  /// Total memory as the runtime reports it: what vLLM multiplies by gpu-memory-utilization.
  std::uint64_t total_bytes = 0;
  std::string total_source;  ///< where total_bytes came from
  std::uint64_t free_bytes = 0;  ///< smallest free memory among the cards; 0 when not detected
  int count = 0;                 ///< cards available to the plan
  std::vector<int> indices;      ///< device indices for *_VISIBLE_DEVICES
  std::vector<int> numa_nodes;   ///< NUMA node of each card; -1 unknown
  bool detected = false;         ///< true when read from this host

  /// Hygon DCUs get DCU advice: HIP_VISIBLE_DEVICES, float16, eager mode, headroom.
  bool dcu() const { return vendor == core::Vendor::hygon; }
  /// AMD and Hygon run vLLM through HIP.
  bool hip() const { return core::runs_hip(vendor); }
};

/// The runtime-reported total of a known device from data/peaks.json's runtime_memory field,
/// else its memory_bytes. `source` receives where the figure came from.
std::uint64_t runtime_memory(const core::DeviceSpec& spec, std::string* source = nullptr);

/// `count` cards of a named device. An unknown name is an error naming the nearest known key.
Result<Cards> cards_from_name(std::string_view name, int count);

/// The GPUs detected on this host; `count` 0 means all of them. No GPU is an error that says
/// to pass --gpu NAME.
Result<Cards> cards_from_detected(const std::vector<device::DetectedDevice>& devices, int count);

} // namespace dcukit::plan
