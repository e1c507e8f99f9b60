#pragma once
// "Is my number normal?": what a healthy card of a SKU measures, per metric, from
// data/expected.json (compiled in), and where a figure sits against it: normal, low (under the
// floor) or high (above what any healthy card of the SKU measured). An unknown SKU or metric is
// "no reference", never an error. A low figure's likely causes come from the same run's facts
// (the PCIe link, NUMA placement, clocks and throttle reasons, other processes on the card).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::core {

enum class Placement { no_reference, normal, low, high };

/// "no reference", "normal", "low", "high".
std::string_view to_string(Placement p);
/// The inverse of to_string; nullopt for any other text.
std::optional<Placement> parse_placement(std::string_view text);
/// As tables print it: "LOW" in capitals, so that it stands out; the others as to_string.
std::string placement_word(Placement p);
/// A figure's place and its ratio to the expected one: "normal 0.98x", "LOW 0.43x", "high
/// 1.31x"; "-" without a reference.
std::string placement_text(Placement p, double ratio);

/// One metric of one SKU: which measurements it applies to and what they should read.
struct ExpectedMetric {
  std::string benchmark;                     ///< "gemm", "memory", "transfer"
  std::map<std::string, std::string> match;  ///< parameters that must read exactly this
  std::map<std::string, double> at_least;    ///< numeric parameters that must be at least this
  double expected = 0, floor = 0;            ///< in the measurement's own unit (FLOP/s, B/s)
  /// Where expected is a vendor's pass line rather than what a card measures (DCGM's, RVS's),
  /// "high" starts further above it; empty: the data's high_margin.
  std::optional<double> high_margin;
  std::string source;
};

struct ExpectedSku {
  std::string key;  ///< the peak data's key ("h200-sxm")
  std::vector<std::string> pci_ids;
  std::vector<ExpectedMetric> metrics;
};

/// Where one figure sits.
struct Placed {
  Placement placement = Placement::no_reference;
  double value = 0, expected = 0, floor = 0;
  std::string sku;     ///< the SKU matched, "" for none
  std::string source;  ///< where expected and floor come from; for no_reference: why there is none
  std::vector<std::string> causes;  ///< for low: what in the run may explain it

  /// value / expected (0 without a reference).
  double ratio() const { return expected > 0 ? value / expected : 0; }
};

/// The figure `value` against `expected` and `floor`: low under the floor, high above
/// expected * (1 + the data's high margin), else normal.
Placement place_figure(double value, double expected, double floor);
/// place_figure with a margin of its own above expected.
Placement place_figure(double value, double expected, double floor, double high_margin);

/// The SKU whose PCI id is `pci_id`, else whose key is `spec_key`; null when neither is known.
const ExpectedSku* find_expected_sku(std::string_view pci_id, std::string_view spec_key);

/// A measurement of `benchmark` with `params` (text; numbers as their decimal text) that
/// measured `value`, placed against its SKU's metric. No SKU, or no metric that matches, gives
/// no_reference with the reason in source.
Placed place(std::string_view pci_id, std::string_view spec_key, std::string_view benchmark,
             const std::map<std::string, std::string>& params, double value);

/// What a run knows that can make a figure low. Unknown facts stay at their defaults.
struct RunFacts {
  int pcie_gen = 0, pcie_width = 0;          ///< the link as trained
  int pcie_gen_max = 0, pcie_width_max = 0;  ///< what the card and slot can do
  int device_numa = -1, memory_numa = -1;    ///< the card's node, and the host memory's
  std::optional<double> clock_mhz, clock_max_mhz;
  std::string throttle_reasons;  ///< "" when none or unknown
  int other_processes = -1;      ///< processes on the card besides dcukit; -1 unknown
};

/// The likely causes of a low figure of `benchmark` from `facts`; when none of them explains
/// it, one line saying what to look at.
std::vector<std::string> likely_causes(std::string_view benchmark, const RunFacts& facts);

/// Every SKU of the data (for tests).
const std::vector<ExpectedSku>& all_expected();

}  // namespace dcukit::core
