#include "patrol/thresholds.h"
#include "patrol/types.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "util/names.h"

namespace dcukit::patrol {
namespace {

constexpr util::Name<Metric> kMetricNames[] = {
    {Metric::temperature, "temperature"},
    {Metric::power, "power"},
    {Metric::memory, "memory"},
    {Metric::busy, "busy"},
    {Metric::ecc_corrected, "ecc-corrected"},
    {Metric::ecc_uncorrected, "ecc-uncorrected"},
    {Metric::residue_memory, "residue-memory"},
};

/// A level: empty -> nullopt; a Nagios range -> it; anything else -> an Error naming it.
Result<std::optional<Range>> parse_level(std::string_view text, std::string_view whole) {
  if (text.empty()) return std::optional<Range>{};
  auto r = parse_range(text);
  if (!r) return Error{fmt::format("--limit {}: {}; write KEY=WARN,CRIT, e.g. temperature=85,95", whole, r.error().message)};
  return std::optional<Range>{*r};
}

std::string fmt_num(double v) {
  return fmt::format("{:.4g}", v);
}

/// "97 C (critical: above 95 C)", "53 C".
std::string describe(double value, const Limit& l, State s, std::string_view unit) {
  std::string out = fmt_num(value) + std::string(unit);
  if (s == State::critical && l.crit) out += fmt::format(" (critical: {})", l.crit->why(value, unit));
  if (s == State::warning && l.warn) out += fmt::format(" (warning: {})", l.warn->why(value, unit));
  return out;
}

/// A range in the perfdata's unit: the guard's ranges are in the judged figure's unit (power in %
/// of the cap), the perfdata's in its own (watts).
std::string scaled(const Range& r, double scale) {
  if (scale == 1.0) return r.text;
  const auto end = [&](double v) { return std::isinf(v) ? std::string(v < 0 ? "~" : "") : fmt_num(v * scale); };
  std::string out = r.inside ? "@" : "";
  if (r.start == 0 && r.text.find(':') == std::string::npos) return out + end(r.end);
  return out + end(r.start) + ":" + end(r.end);
}

/// One judged figure: a finding and its perfdata (limits scaled into the perfdata's unit).
void judge_figure(Report& r, const std::string& gpu, Metric m, double value, const Limit& l, std::string_view unit,
                  Perf perf, double perf_scale = 1.0) {
  const State s = judge(value, l);
  add(r, {gpu, std::string(to_string(m)), s, describe(value, l, s, unit)});
  if (l.warn) perf.warn = scaled(*l.warn, perf_scale);
  if (l.crit) perf.crit = scaled(*l.crit, perf_scale);
  r.perfdata.push_back(std::move(perf));
}

void check_pcie(const telemetry::DeviceState& d, const std::string& gpu, Report& r) {
  std::vector<std::string> low;
  if (d.pcie_width && d.pcie_width_max && *d.pcie_width < *d.pcie_width_max)
    low.push_back(fmt::format("width x{} of x{}", *d.pcie_width, *d.pcie_width_max));
  // An idle device trains its link down to save power; a busy one should run at its maximum.
  const bool busy = d.busy_percent && *d.busy_percent >= 50;
  if (busy && d.pcie_gen && d.pcie_gen_max && *d.pcie_gen < *d.pcie_gen_max)
    low.push_back(fmt::format("gen {} of {} while {:.0f}% busy", *d.pcie_gen, *d.pcie_gen_max, *d.busy_percent));
  if (!d.pcie_width && !d.pcie_gen) return;
  if (low.empty()) {
    add(r, {gpu, "pcie", State::ok,
            fmt::format("gen {} x{}", d.pcie_gen ? std::to_string(*d.pcie_gen) : "?",
                        d.pcie_width ? std::to_string(*d.pcie_width) : "?")});
    return;
  }
  std::string msg = "PCIe link below its maximum:";
  for (std::size_t i = 0; i < low.size(); ++i) msg += (i ? ", " : " ") + low[i];
  add(r, {gpu, "pcie", State::warning, msg + " (reseat the card or check the slot and BIOS)"});
}

}  // namespace

std::string_view to_string(Metric m) {
  return util::name_of(kMetricNames, m);
}
std::optional<Metric> parse_metric(std::string_view s) {
  return util::value_of(kMetricNames, s);
}

const std::vector<Metric>& all_metrics() {
  static const std::vector<Metric> kAll = {Metric::temperature,   Metric::power,         Metric::memory,
                                           Metric::busy,          Metric::ecc_corrected, Metric::ecc_uncorrected,
                                           Metric::residue_memory};
  return kAll;
}

State judge(double value, const Limit& limit) {
  if (limit.crit && limit.crit->alerts(value)) return State::critical;
  if (limit.warn && limit.warn->alerts(value)) return State::warning;
  return State::ok;
}

Limit Thresholds::default_limit(Metric m, std::optional<telemetry::Vendor> vendor) {
  using telemetry::Vendor;
  switch (m) {
    case Metric::temperature:
      // nvidia-smi -q: an H100/H200 slows down at about 87-89 C; MI300X's hotspot (junction,
      // which amd-smi shows when there is no edge sensor) to about 105 C; a DCU's to about 100 C.
      // Each level as Nagios reads "83": alert above it.
      if (vendor == Vendor::nvidia) return {above(83), above(88)};
      if (vendor == Vendor::amd) return {above(90), above(100)};
      return {above(85), above(95)};
    case Metric::power:
      return {above(105), above(120)};  // at the cap is normal under load; well above it, the cap is not held
    case Metric::memory:
      return {above(95), above(99)};  // vLLM at --gpu-memory-utilization 0.9 stays below 95
    case Metric::busy:
      return {};  // a busy device is a working one: perfdata only
    case Metric::ecc_corrected:
      return {above(100), std::nullopt};
    case Metric::ecc_uncorrected:
      return {std::nullopt, above(0)};  // any uncorrected error
    case Metric::residue_memory:
      return {above(1024), std::nullopt};
  }
  return {};
}

Limit Thresholds::limit(Metric m, std::optional<telemetry::Vendor> vendor) const {
  for (const auto& [metric, l] : m_overrides)
    if (metric == m) return l;
  return default_limit(m, vendor);
}

Status Thresholds::set(std::string_view text) {
  const auto eq = text.find('=');
  const std::string_view key = text.substr(0, eq);
  if (eq == std::string_view::npos)
    return Error{fmt::format("--limit {}: write KEY=WARN,CRIT (Nagios ranges), e.g. temperature=85,95, or KEY=off",
                             text)};
  const std::string_view value = text.substr(eq + 1);
  if (key == "pcie") {
    if (value != "off" && value != "on") return Error{fmt::format("--limit {}: pcie takes on or off", text)};
    m_pcie = value == "on";
    return Status::success();
  }
  const auto metric = parse_metric(key);
  if (!metric) {
    std::string keys;
    for (Metric m : all_metrics()) keys += std::string(keys.empty() ? "" : ", ") + std::string(to_string(m));
    return Error{fmt::format("--limit {}: no limit is called '{}'; the keys are {}, pcie", text, key, keys)};
  }
  Limit l;
  if (value != "off") {
    const auto comma = value.find(',');
    if (comma != std::string_view::npos && value.find(',', comma + 1) != std::string_view::npos)
      return Error{fmt::format("--limit {}: one warning and one critical range at most: KEY=WARN,CRIT", text)};
    auto warn = parse_level(value.substr(0, comma), text);
    if (!warn) return warn.error();
    l.warn = *warn;
    if (comma != std::string_view::npos) {
      auto crit = parse_level(value.substr(comma + 1), text);
      if (!crit) return crit.error();
      l.crit = *crit;
    }
    if (!l.warn && !l.crit)
      return Error{fmt::format("--limit {}: give a warning range, a critical range or both, or KEY=off", text)};
  }
  for (auto& [m, old] : m_overrides)
    if (m == *metric) return old = l, Status::success();
  m_overrides.emplace_back(*metric, l);
  return Status::success();
}

void check_device(const telemetry::DeviceState& d, const Thresholds& t, Report& r) {
  const std::string gpu = "gpu" + std::to_string(d.index);
  const auto lim = [&](Metric m) { return t.limit(m, d.vendor); };
  if (d.temperature_c)
    judge_figure(r, gpu, Metric::temperature, *d.temperature_c, lim(Metric::temperature), " C",
                 {gpu + "_temperature", *d.temperature_c, ""});
  if (d.power_w && d.power_cap_w && *d.power_cap_w > 0) {
    const double pct = 100.0 * *d.power_w / *d.power_cap_w;
    judge_figure(r, gpu, Metric::power, pct, lim(Metric::power), "% of cap",
                 {gpu + "_power_watts", *d.power_w, "", {}, {}, 0, *d.power_cap_w}, *d.power_cap_w / 100.0);
  }
  std::optional<double> mem_pct = d.memory_used_percent;
  if (!mem_pct && d.memory_used_bytes && d.memory_total_bytes && *d.memory_total_bytes > 0)
    mem_pct = 100.0 * static_cast<double>(*d.memory_used_bytes) / static_cast<double>(*d.memory_total_bytes);
  if (mem_pct)
    judge_figure(r, gpu, Metric::memory, *mem_pct, lim(Metric::memory), "% used",
                 {gpu + "_memory", *mem_pct, "%", {}, {}, 0, 100});
  if (d.busy_percent)
    judge_figure(r, gpu, Metric::busy, *d.busy_percent, lim(Metric::busy), "% busy",
                 {gpu + "_busy", *d.busy_percent, "%", {}, {}, 0, 100});
  if (d.ecc_corrected)
    judge_figure(r, gpu, Metric::ecc_corrected, static_cast<double>(*d.ecc_corrected), lim(Metric::ecc_corrected),
                 " corrected ECC errors", {gpu + "_ecc_corrected", static_cast<double>(*d.ecc_corrected), "c"});
  if (d.ecc_uncorrected)
    judge_figure(r, gpu, Metric::ecc_uncorrected, static_cast<double>(*d.ecc_uncorrected), lim(Metric::ecc_uncorrected),
                 " uncorrected ECC errors", {gpu + "_ecc_uncorrected", static_cast<double>(*d.ecc_uncorrected), "c"});
  if (t.pcie()) check_pcie(d, gpu, r);
}

}  // namespace dcukit::patrol
