// health (the device's state at the start, and what the watcher saw over the run) and kernel (a
// small checked GEMM and STREAM add: the device computes right).
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "device/buffer.h"
#include "device/checked_gemm.h"
#include "stress/checks.h"
#include "telemetry/kernel_log.h"

namespace dcukit::stress {
namespace {

CheckResult failed(CheckKind kind, const std::string& what, const Status& s, Action action = Action::investigate) {
  CheckResult c;
  c.kind = kind;
  c.verdict = Verdict::fail;
  c.action = action;
  c.summary = what + ": " + s.message();
  c.evidence.push_back(c.summary);
  return c;
}

/// Why the clocks are held down at a sample: the driver's reasons, else what the figures say.
std::string throttle_reason(const Sample& s) {
  if (s.throttle_reasons && !s.throttle_reasons->empty()) return *s.throttle_reasons;
  if (s.temperature_c && *s.temperature_c >= 85) return fmt::format("thermal ({:.0f} C)", *s.temperature_c);
  if (s.power_w && s.power_cap_w && *s.power_cap_w > 0 && *s.power_w >= 0.97 * *s.power_cap_w)
    return fmt::format("power cap ({:.0f} of {:.0f} W)", *s.power_w, *s.power_cap_w);
  return "no reason reported";
}

}  // namespace

CheckResult check_health(DeviceRun& r) {
  CheckResult c;
  c.kind = CheckKind::health;
  const std::vector<Sample> seen = r.watcher ? r.watcher->samples_of(r.info.info.index) : std::vector<Sample>{};
  if (seen.empty()) {
    c.verdict = Verdict::skip;
    c.summary = r.watcher ? "no telemetry of this device: " + r.watcher->missing(r.info.info.index)
                          : "telemetry is off (--sample-every 0)";
    c.evidence.push_back(c.summary);
    return c;
  }
  const Sample& s = seen.front();
  // A finding raises the verdict and the action; the first one found is the summary.
  const auto found = [&](Verdict v, Action a, const std::string& what) {
    if (c.verdict == Verdict::pass) c.summary = what;
    c.verdict = worse(c.verdict, v);
    c.action = stronger(c.action, a);
    c.evidence.push_back(what);
  };
  if (s.ecc_uncorrected.value_or(0) > 0)
    found(Verdict::fail, Action::reset,
          counted(*s.ecc_uncorrected, "uncorrected ECC error", "uncorrected ECC errors") + " since the driver loaded");
  if (s.ecc_corrected.value_or(0) > 0)
    found(Verdict::warn, Action::monitor,
          counted(*s.ecc_corrected, "corrected ECC error", "corrected ECC errors") + " since the driver loaded");
  if (s.retirement_failed.value_or(0) > 0)
    found(Verdict::fail, Action::drain_and_replace,
          "memory retirement (row remapping) has failed: no spare rows are left");
  else if (s.retirement_pending.value_or(0) > 0)
    found(Verdict::warn, Action::reset, "a memory retirement (row remapping) waits for a GPU reset");
  if (s.temperature_c && *s.temperature_c >= 85)
    found(Verdict::warn, Action::investigate, fmt::format("{:.0f} C before any load", *s.temperature_c));
  if (s.retired_pages.value_or(0) > 0)
    c.evidence.push_back(counted(*s.retired_pages, "page", "pages") + " of memory retired (or rows remapped) so far");
  if (r.info.pcie_width > 0)
    c.evidence.push_back(fmt::format("PCIe link gen {} x{}", r.info.pcie_gen, r.info.pcie_width));
  if (c.verdict == Verdict::pass) c.summary = "no ECC errors or retirements, not hot at the start";
  return c;
}

CheckResult check_kernel(DeviceRun& r) {
  CheckResult c;
  c.kind = CheckKind::kernel;
  const auto t0 = r.now_s();
  constexpr std::size_t kElems = 1 << 20;
  auto a = device::allocate(r.dev, device::MemKind::device, kElems * 4);
  if (!a) return failed(c.kind, "allocate", a.error());
  auto b = device::allocate(r.dev, device::MemKind::device, kElems * 4);
  if (!b) return failed(c.kind, "allocate", b.error());
  auto out = device::allocate(r.dev, device::MemKind::device, kElems * 4);
  if (!out) return failed(c.kind, "allocate", out.error());
  using device::Precision;
  Status s = r.dev.fill(Precision::fp32, a->get(), 1.0, kElems, r.stream);
  if (s) s = r.dev.fill(Precision::fp32, b->get(), 2.0, kElems, r.stream);
  if (s)
    s = r.dev.stream_op(device::StreamOp::add, Precision::fp32, a->get(), b->get(), out->get(), 0, kElems, r.stream);
  std::vector<float> host(kElems);
  if (s) s = r.dev.copy(host.data(), out->get(), kElems * 4, r.stream);
  if (s) s = r.dev.synchronize(r.call_timeout);
  if (!s) return failed(c.kind, "the STREAM add", s);
  const auto wrong = std::count_if(host.begin(), host.end(), [](float v) { return v != 3.0f; });
  c.errors += wrong;
  auto g = device::CheckedGemm::make(r.dev, r.stream, Precision::fp32, 256, 21, 22, r.call_timeout);
  if (!g) return failed(c.kind, "the fp32 GEMM", g.error());
  if (Status e = g->enqueue(); !e) return failed(c.kind, "the fp32 GEMM", e);
  auto check = g->check(r.call_timeout);
  if (!check) return failed(c.kind, "the fp32 GEMM", check.error());
  c.seconds = r.now_s() - t0;
  c.evidence.push_back(fmt::format("STREAM add over {} elements: {} wrong", kElems, wrong));
  c.evidence.push_back("fp32 GEMM N=256: " + check->summary);
  if (wrong > 0 || !check->passed) {
    c.verdict = Verdict::fail;
    c.action = Action::drain_and_replace;
    c.errors += check->passed ? 0 : 1;
    c.summary = "wrong numbers from a small kernel or GEMM";
  } else {
    c.summary = "a STREAM add and a GEMM compute right";
  }
  return c;
}

namespace {

/// What a kernel message about the device means for it, as DCGM's actions name it.
void judge_kernel(const KernelNote& k, CheckResult& health) {
  Verdict v = Verdict::fail;
  Action a = Action::investigate;
  std::string what = k.kind;
  if (k.kind == "xid") {
    const auto m = telemetry::xid_meaning(k.xid);
    what = fmt::format("Xid {} ({}{})", k.xid, m.what, m.hardware ? "" : "; often the application");
    switch (k.xid) {
      case 48:
      case 62:
      case 95:
      case 119:
      case 120:
        a = Action::reset;
        break;
      case 64:
      case 79:
      case 140:
        a = Action::drain_and_replace;
        break;
      case 63:
      case 92:
      case 94:
        v = Verdict::warn;
        a = Action::reset;
        break;
      default:
        v = m.hardware ? Verdict::fail : Verdict::warn;
    }
  } else if (k.kind == "off the bus" || k.kind == "ras") {
    a = Action::drain_and_replace;
  } else if (k.kind == "reset") {
    a = Action::reset;
  } else {
    v = Verdict::warn;
  }
  health.verdict = worse(health.verdict, v);
  health.action = stronger(health.action, a);
  health.evidence.push_back(fmt::format("kernel at {:.1f} s: {}: {}", k.t_s, what, k.text));
}

}  // namespace

void judge_run(const std::vector<Sample>& samples, const std::vector<KernelNote>& kernel, CheckResult& health) {
  for (const auto& k : kernel) judge_kernel(k, health);
  if (samples.size() < 2) {
    if (health.verdict != Verdict::pass && health.verdict != Verdict::skip) health.summary = health.evidence.back();
    return;
  }
  const auto grew = [&](std::optional<std::int64_t> Sample::*field) -> std::int64_t {
    std::optional<std::int64_t> first, last;
    for (const auto& s : samples)
      if (s.*field) {
        if (!first) first = *(s.*field);
        last = *(s.*field);
      }
    return first && last ? *last - *first : 0;
  };
  if (const auto n = grew(&Sample::ecc_uncorrected); n > 0) {
    health.verdict = worse(health.verdict, Verdict::fail);
    health.action = stronger(health.action, Action::drain_and_replace);
    health.evidence.push_back(counted(n, "uncorrected ECC error", "uncorrected ECC errors") + " during the run");
  }
  if (const auto n = grew(&Sample::ecc_corrected); n > 0) {
    health.verdict = worse(health.verdict, Verdict::warn);
    health.action = stronger(health.action, Action::monitor);
    health.evidence.push_back(counted(n, "corrected ECC error", "corrected ECC errors") + " during the run");
  }
  if (const auto n = grew(&Sample::retired_pages); n > 0) {
    health.verdict = worse(health.verdict, Verdict::warn);
    health.action = stronger(health.action, Action::monitor);
    health.evidence.push_back(counted(n, "page", "pages") + " of memory retired or rows remapped during the run");
  }
  const Sample &first = samples.front(), &last = samples.back();
  if (last.retirement_failed.value_or(0) > 0 && first.retirement_failed.value_or(0) == 0) {
    health.verdict = worse(health.verdict, Verdict::fail);
    health.action = stronger(health.action, Action::drain_and_replace);
    health.evidence.push_back("memory retirement (row remapping) failed: no spare rows are left");
  } else if (last.retirement_pending.value_or(0) > 0 && first.retirement_pending.value_or(0) == 0) {
    health.verdict = worse(health.verdict, Verdict::warn);
    health.action = stronger(health.action, Action::reset);
    health.evidence.push_back("a memory retirement (row remapping) waits for a GPU reset");
  }
  if (const auto n = grew(&Sample::pcie_replays); n > 0) {
    health.verdict = worse(health.verdict, Verdict::warn);
    health.action = stronger(health.action, Action::investigate);
    health.evidence.push_back(counted(n, "PCIe replay", "PCIe replays") + " during the run (link errors retried)");
  }
  // Clocks: the highest seen at any time against the lowest while a load check ran.
  std::optional<std::int64_t> top;
  for (const auto& s : samples)
    if (s.sclk_mhz && (!top || *s.sclk_mhz > *top)) top = *s.sclk_mhz;
  const Sample* low = nullptr;
  for (const auto& s : samples)
    if (s.sclk_mhz && !s.phase.empty() && s.phase != "health" && s.phase != "kernel" &&
        (!low || *s.sclk_mhz < *low->sclk_mhz))
      low = &s;
  if (top && low && *low->sclk_mhz < 0.85 * static_cast<double>(*top)) {
    const std::string why = throttle_reason(*low);
    const std::string line = fmt::format("clocks fell from {} to {} MHz under load ({} at {:.0f} s): {}", *top,
                                         *low->sclk_mhz, low->phase, low->t_s, why);
    // Held at the power cap is what a sustained GEMM does by design; heat, a hardware slowdown
    // or no reason at all is not.
    const bool power_only = why.rfind("power cap", 0) == 0 && why.find(',') == std::string::npos;
    if (power_only) {
      health.evidence.push_back(line + " (expected under sustained load)");
    } else {
      health.verdict = worse(health.verdict, Verdict::warn);
      health.action = stronger(health.action, Action::investigate);
      health.evidence.push_back(line);
    }
  }
  if (health.verdict != Verdict::pass && health.verdict != Verdict::skip) health.summary = health.evidence.back();
}

}  // namespace dcukit::stress
