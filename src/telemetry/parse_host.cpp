// What support bundles hold besides the vendor tools: lspci (plain, -nn, -k/-vvv, -t), lsmod,
// and transcripts of `cat /sys/...`. Only GPUs are kept: a BMC's ASPEED VGA or a PCIe switch's
// functions are not devices here. In `lspci -t` there is no class, so a Hygon function counts
// only when its device id is one of the DCUs seen in captures (kHygonDcuIds).
#include <algorithm>
#include <array>
#include <map>

#include "telemetry/parsers.h"
#include "telemetry/sysfs_values.h"
#include "util/regex.h"

namespace dcukit::telemetry::parse {
namespace {

// Device ids of Hygon DCUs seen in real output: Z100L, K100_AI, and the HCU of BW-class hosts.
constexpr std::array<std::string_view, 3> kHygonDcuIds{"55b7", "6210", "6430"};

bool gpu_class(std::string_view cls) {
  for (const char* c : {"VGA", "3D", "Display", "Co-processor", "Processing accelerators"})
    if (contains(cls, c)) return true;
  return false;
}

bool known_dcu(std::string_view desc) {
  const std::string l = lower(desc);
  if (contains(l, "kongming")) return true;
  for (auto id : kHygonDcuIds)
    if (contains(l, std::string("device ") + std::string(id)) || contains(l, std::string(":") + std::string(id) + "]"))
      return true;
  return false;
}

// "Chengdu ... KONGMING (rev 01) [1d94:6210]" -> name without the revision, and the device id.
void describe(DeviceState& d, std::string desc) {
  static const util::Regex kIds(R"(\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\])");
  util::Match m;
  if (kIds.search(desc, &m)) {
    d.device_id = pci_id(m[2].str());
    desc.erase(static_cast<std::size_t>(m.position(0)), static_cast<std::size_t>(m.length(0)));
  }
  const auto rev = desc.find(" (rev ");
  if (rev != std::string::npos) desc = desc.substr(0, rev);
  d.name = std::string(trim(desc));
  d.vendor = vendor_from_text(desc);
}

void lspci_detail(DeviceState& d, std::string_view l, std::vector<Fact>& facts) {
  static const util::Regex kLink(R"(Lnk(Cap|Sta):.*Speed ([0-9.]+)GT/s.*Width x(\d+))");
  const std::string s(l);
  util::Match m;
  if (starts_with(l, "NUMA node:")) {
    d.numa_node = parse_whole(l.substr(10));
  } else if (starts_with(l, "Kernel driver in use:")) {
    facts.push_back({"driver", std::string(trim(l.substr(21))) + " on " + d.bus_id.value_or("?")});
  } else if (kLink.search(s, &m)) {
    const auto gts = parse_double(m[2].str());  // "." or 400 digits: no generation, no exception
    const auto gen = gts ? pcie_gen_from_gts(*gts) : std::nullopt;
    const auto width = parse_whole(m[3].str());
    if (m[1] == "Cap")
      d.pcie_gen_max = gen, d.pcie_width_max = width;
    else
      d.pcie_gen = gen, d.pcie_width = width;
  }
}

}  // namespace

Snapshot lspci_lsmod(const Capture& cap) {
  Snapshot s;
  static const util::Regex kPlain(R"(^((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([^:]+):\s+(.*)$)");
  static const util::Regex kTree(R"(\[([0-9a-fA-F]{2})\]----([0-9a-fA-F]{2})\.([0-7])\s+(.*)$)");
  static const util::Regex kModule(R"(^(hydcu|hycu|amdgpu|nvidia)\s+\d+\s+\d+.*$)");
  DeviceState* current = nullptr;
  std::map<std::string, int> skipped;  // Hygon functions that are not known DCUs, by description
  for (const auto& line : cap.lines) {
    util::Match m;
    const std::string l(trim(line));
    if (starts_with(l, "$") || starts_with(l, "#")) continue;
    if (kPlain.full_match(l, &m)) {
      current = nullptr;
      if (!gpu_class(m[2].str()) || !vendor_from_text(m[3].str())) continue;
      current = &device_at(s.devices, static_cast<int>(s.devices.size()));
      current->bus_id = normalize_bus_id(m[1].str());
      describe(*current, m[3].str());
      continue;
    }
    if (kTree.search(l, &m)) {
      const std::string desc = m[4].str();
      const auto vendor = vendor_from_text(desc);
      const bool keep = vendor == Vendor::hygon    ? known_dcu(desc)
                        : vendor == Vendor::nvidia ? !icontains(desc, "bridge") && !icontains(desc, "audio")
                        : vendor == Vendor::amd    ? icontains(desc, "instinct") || icontains(desc, "radeon")
                                                   : false;
      current = nullptr;
      if (!keep) {
        if (vendor == Vendor::hygon) ++skipped[desc];
        continue;
      }
      DeviceState& d = device_at(s.devices, static_cast<int>(s.devices.size()));
      d.bus_id = normalize_bus_id(m[1].str() + ":" + m[2].str() + "." + m[3].str());
      describe(d, desc);
      const auto dev = split_ws(desc);
      if (dev.size() >= 2 && dev[dev.size() - 2] == "Device") d.device_id = pci_id(dev.back());
      continue;
    }
    if (kModule.full_match(l, &m)) {
      s.facts.push_back({"kernel_module", m[1].str()});
      continue;
    }
    if (current && (starts_with(line, "\t") || starts_with(line, " "))) lspci_detail(*current, l, s.facts);
  }
  for (const auto& [desc, n] : skipped)
    s.warnings.push_back("lspci: " + std::to_string(n) + " function(s) of '" + desc +
                         "' are not known DCUs (a PCIe switch's functions?); not listed as devices");
  for (const auto& f : s.facts) {
    if (f.key != "kernel_module") continue;
    if (f.value == "hydcu") s.warnings.push_back("lsmod: hydcu is Hygon's driver up to 6.2");
    if (f.value == "hycu") s.warnings.push_back("lsmod: hycu is Hygon's driver from 6.3 on");
  }
  finish(s, SourceKind::lspci);
  return s;
}

Snapshot sysfs_transcript(const Capture& cap) {
  Snapshot s;
  static const util::Regex kCat(
      R"(^\$\s*cat\s+/sys/(?:class/drm/(card\d+)/device|bus/pci/devices/([0-9a-fA-F:.]+))/(\S+)$)");
  std::map<std::string, int> device_of;  // "card1" or a BDF -> index
  DeviceState* d = nullptr;
  std::string file, value;
  const auto flush = [&] {
    if (!d || file.empty()) return;
    if (!apply_sysfs_value(*d, file, value))
      s.warnings.push_back("sysfs: " + file + " = " + std::string(trim(value)) +
                           (file == "chip_power_average" ? " (unit not documented; not read as power)"
                                                         : " is not a figure dcukit reports"));
    file.clear();
    value.clear();
  };
  for (const auto& line : cap.lines) {
    util::Match m;
    const std::string l(trim(line));
    if (kCat.full_match(l, &m)) {
      flush();
      const std::string key = m[1].matched ? m[1].str() : m[2].str();
      if (!device_of.count(key)) {
        device_of[key] = static_cast<int>(device_of.size());
        DeviceState& nd = device_at(s.devices, device_of[key]);
        if (m[2].matched)
          nd.bus_id = normalize_bus_id(key);
        else
          s.warnings.push_back("sysfs: " + key + " is listed as device " + std::to_string(device_of[key]));
      }
      d = &device_at(s.devices, device_of[key]);
      file = m[3].str();
      continue;
    }
    if (starts_with(l, "$") || starts_with(l, "#") || starts_with(l, "-")) {
      flush();
      d = nullptr;
      continue;
    }
    if (d && !file.empty() && !l.empty()) value += l + "\n";
  }
  flush();
  finish(s, SourceKind::sysfs);
  return s;
}

}  // namespace dcukit::telemetry::parse
