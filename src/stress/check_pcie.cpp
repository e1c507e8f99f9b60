// pcie: pinned host-to-device and device-to-host copies for a while (RVS's pebb, DCGM's PCIe
// test), each direction timed, the data compared after its round trip, the rate held against
// what the link can carry.
#include <fmt/format.h>

#include <algorithm>

#include "core/units.h"
#include "device/buffer.h"
#include "stress/checks.h"
#include "stress/timing.h"

namespace dcukit::stress {
namespace {

using device::MemKind;

/// GB/s one lane carries in one direction at PCIe generation `gen` (after line coding).
double lane_gbps(int gen) {
  switch (gen) {
    case 1:
      return 0.25;
    case 2:
      return 0.5;
    case 3:
      return 0.985;
    case 4:
      return 1.969;
    case 5:
      return 3.938;
    case 6:
      return 7.563;
    default:
      return 0;
  }
}

}  // namespace

CheckResult check_pcie(DeviceRun& r, std::chrono::milliseconds time) {
  CheckResult c;
  c.kind = CheckKind::pcie;
  c.unit = "B/s";
  if (r.on_cpu) {
    c.verdict = Verdict::skip;
    c.summary = "the CPU backend's memory is the host's: no PCIe link to test";
    c.evidence.push_back(c.summary);
    return c;
  }
  const double t0 = r.now_s();
  const std::size_t bytes = 256u << 20;
  auto fail = [&](const std::string& what, const std::string& why) {
    c.verdict = Verdict::fail;
    c.action = Action::investigate;
    c.summary = what + ": " + why;
    c.evidence.push_back(c.summary);
    c.seconds = r.now_s() - t0;
    return c;
  };
  auto src = device::allocate(r.dev, MemKind::pinned_host, bytes);
  if (!src) return fail("allocate pinned host memory", src.error().message);
  auto back = device::allocate(r.dev, MemKind::pinned_host, bytes);
  if (!back) return fail("allocate pinned host memory", back.error().message);
  auto dev = device::allocate(r.dev, MemKind::device, bytes);
  if (!dev) return fail("allocate device memory", dev.error().message);
  auto* p = src->as<unsigned char>();
  for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(i * 131 + (i >> 12));
  r.progress(fmt::format("pcie copies of {} each way", core::format_bytes(bytes)));
  const auto h2d = [&] { return r.dev.copy(dev->get(), src->get(), bytes, r.stream); };
  const auto d2h = [&] { return r.dev.copy(back->get(), dev->get(), bytes, r.stream); };
  std::vector<RatePoint> up, down;
  while (r.now_s() - t0 < time.count() / 1e3 && !r.stopped()) {
    auto a = timed_ms(r, 4, h2d);
    if (!a) return fail("host to device", a.error().message);
    up.push_back({r.now_s(), 4.0 * bytes / (*a / 1e3)});
    auto b = timed_ms(r, 4, d2h);
    if (!b) return fail("device to host", b.error().message);
    down.push_back({r.now_s(), 4.0 * bytes / (*b / 1e3)});
  }
  if (Status s = r.dev.synchronize(r.call_timeout); !s) return fail("synchronize", s.message());
  for (std::size_t i = 0; i < bytes; ++i)
    if (back->as<unsigned char>()[i] != p[i]) ++c.errors;
  c.seconds = r.now_s() - t0;
  const auto up_rate = sustained(up, 0), down_rate = sustained(down, 0);
  c.series = up;
  c.series.insert(c.series.end(), down.begin(), down.end());
  std::sort(c.series.begin(), c.series.end(), [](const RatePoint& a, const RatePoint& b) { return a.t_s < b.t_s; });
  if (up_rate && down_rate) c.rate = std::min(*up_rate, *down_rate);
  c.summary = fmt::format("host to device {}, device to host {} (pinned, {} copies)",
                          up_rate ? rate_text(*up_rate, c.unit) : "-", down_rate ? rate_text(*down_rate, c.unit) : "-",
                          core::format_bytes(bytes));
  // What the link can carry: its maximum generation and width, as the peak data or sysfs say.
  int gen = r.info.spec && r.info.spec->pcie_gen > 0 ? r.info.spec->pcie_gen : r.info.pcie_gen;
  int width = r.info.spec && r.info.spec->pcie_width > 0 ? r.info.spec->pcie_width : r.info.pcie_width;
  if (gen > 0 && width > 0 && c.rate) {
    const double link = lane_gbps(gen) * width * 1e9;
    c.expected = 0.8 * link;
    c.floor = 0.5 * link;
    c.reference = fmt::format("PCIe gen {} x{}: {:.1f} GB/s a direction; floor half of it", gen, width, link / 1e9);
    c.evidence.push_back(
        fmt::format("the slower direction at {:.0f}% of the link's {:.1f} GB/s", 100 * *c.rate / link, link / 1e9));
    if (*c.rate < *c.floor) {
      c.verdict = Verdict::warn;
      c.action = Action::investigate;
      c.evidence.push_back(
          fmt::format("below half the link: check the slot, a riser, the link's width now (x{} at "
                      "the start) and the NUMA node of this process",
                      r.info.pcie_width));
    }
  } else {
    c.reference = "no reference";
    c.evidence.push_back("the link's generation and width are not known: no floor");
  }
  if (c.errors > 0) {
    c.verdict = Verdict::fail;
    c.action = Action::drain_and_replace;
    c.summary = fmt::format("{} bytes came back different after the round trip", c.errors);
    c.evidence.push_back(c.summary);
  }
  return c;
}

}  // namespace dcukit::stress
