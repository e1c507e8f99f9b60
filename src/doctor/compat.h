#pragma once
// Versions and the driver/toolkit pairs that go together, as data with their sources:
// data/dcu_compat.json (the minimum Hygon DCU driver for each DTK, per card) and
// data/cuda_compat.json (the minimum NVIDIA driver for each CUDA runtime), both compiled in.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace dcukit::doctor {

/// The numbers of a version: "6.3.28-V1.3.0b" -> {6,3,28}, "25.04.4" -> {25,4,4},
/// "550.54.15" -> {550,54,15}. Empty when it does not start with a number.
std::vector<int> version_numbers(std::string_view v);
/// Compares two versions number by number (missing numbers count as 0): <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);
/// True when `v` starts with the numbers of `prefix` ("25.04.4" has prefix "25.04").
bool version_has_prefix(std::string_view v, std::string_view prefix);
/// "2.4.1+cu124" -> "2.4"; `v` itself when it has fewer than two numbers.
std::string major_minor(std::string_view v);

/// The DTK a wheel was built for, from its tag: "das.opt1.dtk2604" -> "26.04",
/// "dtk25041" -> "25.04.1", "das1.0+git00661e0.abi0.dtk2404" -> "24.04"; "" when absent.
std::string dtk_of_tag(std::string_view tag);
/// The torch a package was built against, from its tag: "...torch290..." -> "2.9.0"; "" when absent.
std::string torch_of_tag(std::string_view tag);

/// One row of data/dcu_compat.json: with DTK `dtk` (or later) on these cards, the driver must
/// be at least `min_driver`.
struct DcuPair {
  std::string card;                ///< "K100-AI"
  std::vector<std::string> isa;    ///< "gfx928"; empty when the card's ISA is not known
  std::vector<std::string> names;  ///< what its name contains ("K100_AI"), for cards without an ISA
  std::string dtk;                 ///< "24.04"
  std::string min_driver;          ///< "6.2.26"
  std::string source;
};

/// One row of data/cuda_compat.json: CUDA `cuda` needs driver `min_driver` or later.
struct CudaPair {
  std::string cuda;        ///< "12.4"
  std::string min_driver;  ///< "550.54.14"
};

/// The compiled-in tables.
struct CompatData {
  std::vector<DcuPair> dcu;
  std::string dcu_source;
  std::vector<CudaPair> cuda;
  /// CUDA major -> the driver from which minor-version compatibility holds ("12" -> "525.60.13").
  std::vector<CudaPair> cuda_minor_compat;
  std::string cuda_source;
};

/// Parses the two tables; errors name the table and the field.
Result<CompatData> parse_compat(std::string_view dcu_json, std::string_view cuda_json);
/// The compiled-in tables (parsed once).
const CompatData& compat_data();

/// The row that decides the minimum driver for DTK `dtk` on a card with ISA `isa` and name
/// `name`: among the rows for that card whose DTK is not newer than `dtk`, the newest.
/// nullptr when no row is for that card or the DTK predates them all.
const DcuPair* dcu_rule(const CompatData& data, std::string_view dtk, std::string_view isa, std::string_view name);

/// The newest CUDA version a driver supports by the table ("550.54.15" -> "12.4"); "" if below all.
std::string cuda_of_driver(const CompatData& data, std::string_view driver);
/// The driver minimum for a CUDA version ("12.4.1" -> the 12.4 row); nullptr when not in the table.
const CudaPair* cuda_rule(const CompatData& data, std::string_view cuda);

}  // namespace dcukit::doctor
