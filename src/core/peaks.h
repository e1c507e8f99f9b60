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

/// Whether a card can do something: three-valued, because published figures are often silent
/// and silence is not "no".
enum class Support { unknown, yes, no };

/// "unknown", "yes", "no".
std::string_view to_string(Support support);
/// The inverse of to_string; nullopt for any other text.
std::optional<Support> parse_support(std::string_view text);

/// One capability of a card and where the answer comes from. A yes or a no always names its
/// source; an unknown says what the published figures do say (note) and, where a later source
/// advises how to act without the card at hand, that lean (assume, assume_source).
struct Capability {
  Support value = Support::unknown;
  std::string source;                   ///< who says yes or no; empty for unknown
  std::string note;                     ///< for unknown: what is published, and what is not
  Support assume = Support::unknown;    ///< offline lean for an unknown: yes, no, or none
  std::string assume_source;            ///< who advises that lean
};

/// A known device: how to recognise it and what it is promised to do.
struct DeviceSpec {
  std::string key;           ///< "bw1000", "h200-sxm": what --gpu takes
  std::string display_name;  ///< "Hygon BW1000"
  Vendor vendor = Vendor::nvidia;  ///< nvidia, amd or hygon
  std::string arch;          ///< "gfx936", "sm_90"
  std::vector<std::string> name_patterns;  ///< RE2 patterns (case-insensitive) on the runtime's name
  std::vector<std::string> pci_ids;        ///< "10de:2335" (vendor:device, lower case hex)
  std::uint64_t memory_bytes = 0;   ///< the published size (decimal GB on datasheets)
  /// The total the runtime reports (what vLLM multiplies by its utilization); 0 when unknown.
  PeakFigure runtime_memory;
  int pcie_gen = 0, pcie_width = 0;
  /// Sold on a board whose NVSwitch chips do NVLink SHARP (HGX H100/H200): NCCL allocates its NVLS
  /// buffers there at TP > 1. board_source says where that comes from.
  bool nvls_board = false;
  std::string board_source;
  Capability bf16;          ///< bf16 arithmetic (torch.cuda.is_bf16_supported() on the card)
  Capability fp8;           ///< FP8 compute units (FP8 weights run natively)
  Capability fp8_kv_cache;  ///< vLLM's --kv-cache-dtype fp8 on this card (storage, not compute)
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
