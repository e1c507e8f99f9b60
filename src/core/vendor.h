#pragma once
// Who made a device. Decides advice that differs by vendor (a Hygon DCU gets DCU advice; HIP's
// visible-devices variable for AMD and Hygon) and is written into reports as its name.
#include <optional>
#include <string_view>

#include "util/names.h"

namespace dcukit::core {

/// The maker of a device; cpu for the host's own processor (the CPU backend).
enum class Vendor { nvidia, amd, hygon, cpu };

/// The one table between Vendor and its name in reports and data/peaks.json.
inline constexpr util::Name<Vendor> kVendorNames[] = {
    {Vendor::nvidia, "nvidia"}, {Vendor::amd, "amd"}, {Vendor::hygon, "hygon"}, {Vendor::cpu, "cpu"}};

/// "nvidia", "amd", "hygon", "cpu".
constexpr std::string_view to_string(Vendor v) {
  return util::name_of(kVendorNames, v);
}

/// The vendor of a name in kVendorNames, or nullopt.
constexpr std::optional<Vendor> parse_vendor(std::string_view name) {
  return util::value_of(kVendorNames, name);
}

/// The vendor of a PCI id as sysfs gives it ("10de:2335": NVIDIA 10de, AMD 1002, Hygon 1d94),
/// or nullopt for any other maker or an empty id.
constexpr std::optional<Vendor> vendor_of_pci_id(std::string_view pci_id) {
  const std::string_view maker = pci_id.substr(0, pci_id.find(':'));
  if (maker == "10de") return Vendor::nvidia;
  if (maker == "1002") return Vendor::amd;
  if (maker == "1d94") return Vendor::hygon;
  return std::nullopt;
}

/// True for the vendors whose GPUs run HIP (AMD, and Hygon's DCUs through DTK).
constexpr bool runs_hip(Vendor v) {
  return v == Vendor::amd || v == Vendor::hygon;
}

}  // namespace dcukit::core
