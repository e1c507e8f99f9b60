// devices.*: each GPU's ISA, compute units, memory, clocks and NUMA node (seed 000's environment
// table), its PCIe link against what the card and the slot can do, ECC counts, and a performance
// level pinned low. The figures are telemetry's; each evidence line names the source that gave it.
#include <fmt/format.h>

#include <algorithm>

#include "core/units.h"
#include "doctor/checks.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

using telemetry::Field;

std::string link_text(const Link& l) {
  if (l.gen <= 0 && l.width <= 0) return "unknown";
  return fmt::format("Gen{} x{}", l.gen > 0 ? std::to_string(l.gen) : "?", l.width > 0 ? std::to_string(l.width) : "?");
}

// "(sysfs)", "(nvml)": where telemetry read the figure.
std::string from(const Gpu& g, Field f) {
  auto it = g.state.sources.find(f);
  return it == g.state.sources.end() ? "" : fmt::format(" ({})", telemetry::to_string(it->second));
}

Finding& device_finding(std::vector<Finding>& out, const Gpu& g, const char* id, Verdict s, std::string summary) {
  auto& f = add(out, Category::devices, id, s, std::move(summary));
  f.subject = g.bus_id;
  return f;
}

void inventory(const Gpu& g, const GpuScan& scan, std::vector<Finding>& out) {
  const auto& d = g.state;
  std::vector<std::string> parts;
  parts.push_back(g.name().empty() ? std::string(core::to_string(g.vendor)) + " " + g.pci_id : g.name());
  if (!g.isa().empty()) parts.push_back(g.isa());
  if (d.compute_units) parts.push_back(fmt::format("{} CUs", *d.compute_units));
  if (d.memory_total_bytes) parts.push_back(core::format_bytes(*d.memory_total_bytes));
  if (d.sclk_max_mhz) parts.push_back(fmt::format("max {} MHz", *d.sclk_max_mhz));
  parts.push_back(g.numa_node() >= 0 ? fmt::format("NUMA node {}", g.numa_node()) : "NUMA node unknown");
  parts.push_back(link_text(g.link()));
  auto& f = device_finding(out, g, "devices.inventory", Verdict::ok, fmt::format("{}", fmt::join(parts, ", ")));
  if (!scan.source.empty()) f.evidence.push_back("figures from " + scan.source);
  for (const auto& r : g.read_from) f.evidence.push_back("read " + r);
  if (d.sclk_mhz) f.evidence.push_back(fmt::format("current sclk {} MHz{}", *d.sclk_mhz, from(g, Field::sclk_mhz)));
  if (d.memory_used_bytes)
    f.evidence.push_back("memory used " + core::format_bytes(*d.memory_used_bytes) + from(g, Field::memory_used_bytes));
  if (d.temperature_c)
    f.evidence.push_back(fmt::format("temperature {:g} C{}", *d.temperature_c, from(g, Field::temperature_c)));
}

void pcie(const Gpu& g, std::vector<Finding>& out) {
  const Link now = g.link(), max = g.link_max();
  if (now.width <= 0 || max.width <= 0) {
    device_finding(out, g, "devices.pcie_link", Verdict::skip, "no source gave this card's link width");
    return;
  }
  std::vector<std::string> ev{fmt::format("current link: {}{}", link_text(now), from(g, Field::pcie_width)),
                              fmt::format("card's maximum: {}{}", link_text(max), from(g, Field::pcie_width_max))};
  Link best = max;
  if (g.slot_max) {
    ev.push_back(fmt::format("upstream port (the slot) max: {} (sysfs)", link_text(*g.slot_max)));
    if (g.slot_max->gen > 0) best.gen = std::min(best.gen, g.slot_max->gen);
    if (g.slot_max->width > 0) best.width = std::min(best.width, g.slot_max->width);
  }
  const std::string lspci = fmt::format("sudo lspci -vvv -s {} | grep -E 'LnkCap|LnkSta'", g.bus_id);
  if (now.width < best.width) {
    auto& f = device_finding(out, g, "devices.pcie_link", Verdict::warn,
                             fmt::format("link trained at x{} where x{} is possible", now.width, best.width));
    f.evidence = ev;
    f.why =
        "fewer lanes cut host<->device bandwidth in proportion (x8 halves it): weights load and pinned copies "
        "run at half speed, without an error";
    f.fix = lspci + "   # then reseat the card or move it to a full-width slot (check the BIOS lane bifurcation)";
    return;
  }
  if (g.slot_max && (g.slot_max->gen < max.gen || g.slot_max->width < max.width)) {
    auto& f = device_finding(
        out, g, "devices.pcie_link", Verdict::warn,
        fmt::format("the slot limits the card to {} (the card can do {})", link_text(*g.slot_max), link_text(max)));
    f.evidence = ev;
    f.why = "a Gen4 slot gives a Gen5 card half its host bandwidth";
    f.fix = "move the card to a slot of its generation, or raise the slot's PCIe speed in the BIOS; " + lspci;
    return;
  }
  if (best.gen > 0 && now.gen > 0 && now.gen < best.gen) {
    const bool busy = g.state.busy_percent && *g.state.busy_percent > 0;
    auto& f = device_finding(out, g, "devices.pcie_link", busy ? Verdict::warn : Verdict::ok,
                             fmt::format("running at {} of {}{}", link_text(now), link_text(best),
                                         busy ? " while busy" : " (idle links slow down to save power)"));
    f.evidence = ev;
    if (busy) {
      f.why = "a link below its generation under load has trained down (a bad riser, a signal problem)";
      f.fix = lspci + "   # and: dcukit bench --only transfer";
    }
    return;
  }
  device_finding(out, g, "devices.pcie_link", Verdict::ok, "link at its maximum, " + link_text(now)).evidence = ev;
}

void ecc(const Gpu& g, std::vector<Finding>& out) {
  const auto& d = g.state;
  if (!d.ecc_corrected && !d.ecc_uncorrected) {
    device_finding(out, g, "devices.ecc", Verdict::skip,
                   g.vendor == core::Vendor::nvidia ? "no ECC counts (NVML gives them: nvidia-smi -q -d ECC)"
                                                    : "no ras/umc_err_count for this card");
    return;
  }
  const long long ue = d.ecc_uncorrected.value_or(0), ce = d.ecc_corrected.value_or(0);
  const std::string ev = fmt::format(
      "ECC counts: uncorrectable {}, correctable {}{}", ue, ce,
      d.sources.count(Field::ecc_uncorrected) ? from(g, Field::ecc_uncorrected) : " (sysfs ras/umc_err_count)");
  if (ue > 0 || ce > 0) {
    auto& f = device_finding(out, g, "devices.ecc", ue > 0 ? Verdict::fail : Verdict::warn,
                             fmt::format("{} uncorrectable and {} correctable memory errors", ue, ce));
    f.evidence = {ev};
    f.why = ue > 0 ? "an uncorrectable error corrupts data or kills the job; the card may need a reset or replacement"
                   : "correctable errors that keep growing announce a failing memory";
    f.fix =
        "watch the counts; reset the card when idle (hy-smi/rocm-smi --gpureset -d N) and report a growing count to "
        "the vendor";
    return;
  }
  device_finding(out, g, "devices.ecc", Verdict::ok, "no memory errors").evidence = {ev};
}

void clocks(const Gpu& g, std::vector<Finding>& out) {
  if (g.perf_level.empty()) {
    device_finding(out, g, "devices.clocks", Verdict::skip, "no power_dpm_force_performance_level for this card");
    return;
  }
  std::vector<std::string> ev{
      fmt::format("/sys/bus/pci/devices/{}/power_dpm_force_performance_level: {}", g.bus_id, g.perf_level)};
  if (g.state.sclk_mhz && g.state.sclk_max_mhz)
    ev.push_back(
        fmt::format("sclk {} of {} MHz{}", *g.state.sclk_mhz, *g.state.sclk_max_mhz, from(g, Field::sclk_mhz)));
  if (g.perf_level == "low") {
    auto& f = device_finding(out, g, "devices.clocks", Verdict::warn, "performance level pinned to low");
    f.evidence = ev;
    f.why = "'low' holds the clocks at their lowest level whatever the load";
    f.fix = fmt::format("echo auto | sudo tee /sys/bus/pci/devices/{}/power_dpm_force_performance_level", g.bus_id);
    return;
  }
  device_finding(out, g, "devices.clocks", Verdict::ok, "performance level " + g.perf_level).evidence = ev;
}

}  // namespace

void check_devices(const Context& c, std::vector<Finding>& out) {
  if (c.scan.gpus.empty()) {
    auto& f = add(out, Category::devices, "devices.inventory", Verdict::skip,
                  c.scan.sysfs_present ? "no GPU on the PCI bus" : "no sysfs to read the GPUs from");
    if (!c.scan.source.empty()) f.evidence.push_back("asked " + c.scan.source);
    for (const auto& w : c.scan.warnings) f.evidence.push_back(w);
    return;
  }
  for (const auto& g : c.scan.gpus) {
    inventory(g, c.scan, out);
    pcie(g, out);
    ecc(g, out);
    clocks(g, out);
  }
}

}  // namespace dcukit::doctor
