#pragma once
// The figures a device is judged against, per SKU, from data/stress.json (compiled in): the
// expected sustained GEMM and memory bandwidth with their floors, and the power a sustained load
// must reach, each with its source. An unknown SKU has none: its checks run and say "no
// reference".
#include <optional>
#include <string>
#include <vector>

#include "device/types.h"

namespace dcukit::stress {

/// An expected figure and the floor under which a check fails.
struct Figure {
  double expected = 0, floor = 0;
  std::string source;
};

/// One SKU's figures.
struct SkuThresholds {
  std::string key;  ///< the peak data's key ("h200-sxm")
  std::vector<std::string> pci_ids;
  std::optional<device::Precision> gemm_precision;  ///< the precision `gemm` is judged in
  int gemm_n = 0;
  std::optional<Figure> gemm, hbm;
  std::optional<double> power_min_ratio;  ///< of the power cap, under sustained load
  std::string power_source;
};

/// The SKU whose PCI id is `pci_id`, else whose key is `spec_key`; null when neither is known.
const SkuThresholds* find_sku(const std::string& pci_id, const std::string& spec_key);

/// Every SKU of the data (for tests and --help).
const std::vector<SkuThresholds>& all_skus();

}  // namespace dcukit::stress
