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

/// The one table of PCI vendor ids: NVIDIA 0x10de, AMD 0x1002, Hygon 0x1d94.
struct PciVendor {
  unsigned id;
  Vendor vendor;
};
inline constexpr PciVendor kPciVendors[] = {
    {0x10de, Vendor::nvidia}, {0x1002, Vendor::amd}, {0x1d94, Vendor::hygon}};

/// The vendor of a PCI vendor id, or nullopt for any other maker.
constexpr std::optional<Vendor> vendor_of_pci_vendor(unsigned id) {
  for (const auto& v : kPciVendors)
    if (v.id == id) return v.vendor;
  return std::nullopt;
}

/// The vendor of a PCI id as sysfs or lspci gives it ("10de:2335", "0x10de", "1D94"), or nullopt
/// for any other maker, an empty id or one that is not hexadecimal.
constexpr std::optional<Vendor> vendor_of_pci_id(std::string_view pci_id) {
  std::string_view maker = pci_id.substr(0, pci_id.find(':'));
  if (maker.size() > 2 && maker[0] == '0' && (maker[1] == 'x' || maker[1] == 'X')) maker.remove_prefix(2);
  if (maker.empty() || maker.size() > 4) return std::nullopt;
  unsigned id = 0;
  for (char c : maker) {
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) return std::nullopt;
    id = id * 16 + static_cast<unsigned>(digit);
  }
  return vendor_of_pci_vendor(id);
}

/// True for the vendors whose GPUs run HIP (AMD, and Hygon's DCUs through DTK).
constexpr bool runs_hip(Vendor v) {
  return v == Vendor::amd || v == Vendor::hygon;
}

}  // namespace dcukit::core
