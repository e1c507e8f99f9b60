#pragma once
// Published peaks and facts of known devices, read from data/peaks.json (compiled in), so that
// results can be shown as a percentage of what the vendor promises, and plans know the card.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/vendor.h"
#include "util/result.h"

namespace dcukit::core {

/// One published figure. Keys: fp64, fp64_vector, fp32, tf32, fp16, bf16, fp8, int8 (FLOP/s or
/// OP/s, dense) and hbm (bytes/s).
struct PeakFigure {
  double value = 0;
  bool low_confidence = false;  ///< not the vendor's figure: say so wherever it is shown
  std::string source;           ///< where it came from
};

/// A known device: how to recognise it and what it is promised to do.
struct DeviceSpec {
  std::string key;           ///< "bw1000", "h200-sxm": what --gpu takes
  std::string display_name;  ///< "Hygon BW1000"
  Vendor vendor = Vendor::nvidia;  ///< nvidia, amd or hygon
  std::string arch;          ///< "gfx936", "sm_90"
  std::vector<std::string> name_patterns;  ///< ECMAScript regexes on the runtime's name
  std::vector<std::string> pci_ids;        ///< "10de:2335" (vendor:device, lower case hex)
  std::uint64_t memory_bytes = 0;   ///< the published size (decimal GB on datasheets)
  /// The total the runtime reports (what vLLM multiplies by its utilization); 0 when unknown.
  PeakFigure runtime_memory;
  int pcie_gen = 0, pcie_width = 0;
  std::optional<bool> bf16, fp8;  ///< empty where nobody has published it
  std::string source, notes;
  std::map<std::string, PeakFigure> peaks;

  /// The figure for key, or nullptr when none is published.
  const PeakFigure* peak(std::string_view key) const;
  /// True for Hygon DCUs: they get DCU advice (HIP_VISIBLE_DEVICES, eager mode, headroom).
  bool is_dcu() const { return vendor == Vendor::hygon; }
};

/// All known devices.
class PeakTable {
public:
  /// The table compiled into the binary from data/peaks.json.
  static const PeakTable& builtin();
  /// Parses a peaks JSON document; errors name `origin` and the bad field.
  static Result<PeakTable> parse(std::string_view json_text, std::string_view origin);

  /// The device with this PCI id ("10de:2335"), else the first whose name pattern matches
  /// `name` (and whose arch matches `arch` where both are known); nullptr when none does.
  const DeviceSpec* match(std::string_view name, std::string_view pci_id = {}, std::string_view arch = {}) const;
  /// A device by key or display name, case-insensitively, ignoring spaces, '-' and '_'
  /// ("BW1000", "h200", "K100-AI"); a unique key prefix also matches.
  const DeviceSpec* find(std::string_view key_or_name) const;
  const std::vector<DeviceSpec>& devices() const { return m_devices; }

private:
  std::vector<DeviceSpec> m_devices;
};

/// Parses "--peak fp16=480e12,hbm=1.6T" into figures; errors name the bad item.
Result<std::map<std::string, double>> parse_peak_overrides(std::string_view text);

/// Theoretical PCIe rate per direction in bytes/s (128b/130b from Gen3; 8b/10b before).
/// 0 for an unknown generation.
double pcie_bytes_per_second(int gen, int width);

/// Generation from sysfs's current_link_speed text ("32.0 GT/s PCIe" -> 5); 0 if unknown.
int pcie_gen_from_speed(std::string_view speed);

} // namespace dcukit::core
