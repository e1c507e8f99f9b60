#include "flows/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/stats.h"
#include "core/units.h"
#include "flows/results.h"
#include "util/names.h"

namespace dcukit::flows {
namespace {

constexpr util::Name<Verdict> kVerdictNames[] = {
    {Verdict::same, "same"},         {Verdict::better, "better"},       {Verdict::worse, "worse"},
    {Verdict::only_base, "only in base"}, {Verdict::only_new, "only in new"}, {Verdict::failed, "failed"},
};

/// A run's own spread: (max - min) / median of its timed samples; 0 where it has fewer than two.
double spread(const bench::Measurement& m) {
  if (m.time_ms.count < 2 || m.time_ms.median <= 0) return 0;
  return (m.time_ms.max - m.time_ms.min) / m.time_ms.median;
}

std::string format_rate(double v, bench::RateUnit unit) {
  switch (unit) {
    case bench::RateUnit::byte_per_s:
      return core::format_bandwidth(v);
    case bench::RateUnit::flop_per_s:
      return core::format_ops(v);
    case bench::RateUnit::op_per_s:
      return core::format_ops(v, true);
    case bench::RateUnit::microseconds:
      return fmt::format("{:.3g} us", v);
    case bench::RateUnit::none:
      break;
  }
  return fmt::format("{:.4g}", v);
}

void note_difference(Comparison& c, const std::string& what, const std::string& a, const std::string& b,
                     bool refuse, const CompareOptions& o) {
  if (a == b) return;
  c.differences.emplace_back(what, fmt::format("{} -> {}", a.empty() ? "?" : a, b.empty() ? "?" : b));
  if (refuse && !o.force)
    c.refusals.push_back(fmt::format("the {} differs ({} in the base, {} in the new run)", what, a.empty() ? "?" : a,
                                     b.empty() ? "?" : b));
}

/// What any two runs are refused or noted for: another backend or device count (refused), another
/// host or dcukit version (noted).
void note_runs(Comparison& c, device::BackendKind base_backend, device::BackendKind new_backend,
               std::size_t base_devices, std::size_t new_devices, const core::RunInfo& base_info,
               const core::RunInfo& new_info, const CompareOptions& o) {
  note_difference(c, "backend", std::string(device::to_string(base_backend)), std::string(device::to_string(new_backend)),
                  true, o);
  note_difference(c, "device count", std::to_string(base_devices), std::to_string(new_devices), true, o);
  note_difference(c, "host", base_info.host.hostname, new_info.host.hostname, false, o);
  note_difference(c, "dcukit version", base_info.version, new_info.version, false, o);
}

/// A row measured in both runs: its signed change, judged against `noise`.
void judge(CompareRow& r, double change, double noise) {
  r.change = change;
  r.noise = noise;
  r.verdict = std::abs(change) <= noise ? Verdict::same : (change > 0 ? Verdict::better : Verdict::worse);
}

/// The cases of one place (a device, or the group), by benchmark and name.
using Cases = std::map<std::pair<std::string, std::string>, const bench::Measurement*>;

Cases cases_of(const std::vector<bench::Measurement>& results) {
  Cases out;
  for (const auto& m : results) out.emplace(std::make_pair(m.benchmark, m.name), &m);
  return out;
}

void compare_cases(Comparison& c, const std::string& where, const Cases& base, const Cases& now, const CompareOptions& o) {
  for (const auto& [key, b] : base) {
    CompareRow r{where, key.first, key.second, b->rate_unit};
    const auto it = now.find(key);
    r.base = b->rate;
    if (it == now.end()) {
      r.verdict = Verdict::only_base;
      r.why = "not run in the new run";
    } else if (b->outcome != bench::Outcome::ok || it->second->outcome != bench::Outcome::ok) {
      const bool base_ok = b->outcome == bench::Outcome::ok;
      r.verdict = Verdict::failed;
      r.now = it->second->rate;
      r.why = fmt::format("{} did not measure it: {}", base_ok ? "the new run" : "the base",
                          base_ok ? it->second->reason : b->reason);
    } else {
      const bench::Measurement& n = *it->second;
      r.now = n.rate;
      const bool lower_is_better = b->rate_unit == bench::RateUnit::microseconds;
      const double change =
          b->rate > 0 && n.rate > 0 ? (lower_is_better ? b->rate / n.rate - 1.0 : n.rate / b->rate - 1.0) : 0;
      judge(r, change, std::max({o.threshold, spread(*b), spread(n)}));
    }
    c.rows.push_back(std::move(r));
  }
  for (const auto& [key, n] : now)
    if (!base.count(key)) {
      CompareRow r{where, key.first, key.second, n->rate_unit};
      r.now = n->rate;
      r.verdict = Verdict::only_new;
      r.why = "not run in the base";
      c.rows.push_back(std::move(r));
    }
}

/// A stress check's own noise: how far the sustained figure (the median of its stretches) moved
/// within the run, |median of the first half - median of the second half| / median of all (a card
/// that throttled half-way moves it; one that swings around its power cap from stretch to stretch
/// does not); 0 where it has fewer than four stretches.
double spread(const stress::CheckResult& c) {
  if (c.series.size() < 4) return 0;
  std::vector<double> all, first, second;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    all.push_back(c.series[i].rate);
    (i < c.series.size() / 2 ? first : second).push_back(c.series[i].rate);
  }
  const double median = core::percentile(all, 50);
  return median > 0 ? std::abs(core::percentile(first, 50) - core::percentile(second, 50)) / median : 0;
}

bench::RateUnit stress_unit(const std::string& unit) {
  if (unit == "FLOP/s") return bench::RateUnit::flop_per_s;
  if (unit == "B/s") return bench::RateUnit::byte_per_s;
  return bench::RateUnit::none;
}

/// One device's checks: each sustained rate (FLOP/s, B/s) against the noise, and each check whose
/// verdict got worse (pass to warn or fail, new errors) as a regression of its own.
void compare_checks(Comparison& c, const std::string& where, const stress::DeviceResult& base,
                    const stress::DeviceResult& now, const CompareOptions& o) {
  for (const auto& b : base.checks) {
    const auto it = std::find_if(now.checks.begin(), now.checks.end(), [&](const auto& n) { return n.kind == b.kind; });
    const std::string name(stress::to_string(b.kind));
    if (it == now.checks.end()) {
      c.rows.push_back({where, "stress", name, stress_unit(b.unit), b.rate.value_or(0), 0, 0, 0, Verdict::only_base,
                        "not run in the new run"});
      continue;
    }
    const stress::CheckResult& n = *it;
    if (stress::worse(b.verdict, n.verdict) != b.verdict || n.errors > b.errors)
      c.rows.push_back({where, "stress", name + " verdict", bench::RateUnit::none, 0, 0, 0, 0, Verdict::worse,
                        fmt::format("{} -> {}{}: {}", stress::to_string(b.verdict), stress::to_string(n.verdict),
                                    n.errors > b.errors ? fmt::format(", {} error(s)", n.errors) : std::string(),
                                    n.summary)});
    const bench::RateUnit unit = stress_unit(b.unit);
    if (unit == bench::RateUnit::none || b.unit != n.unit) continue;  // power, health: a verdict, not a rate
    CompareRow r{where, "stress", name, unit};
    r.base = b.rate.value_or(0);
    r.now = n.rate.value_or(0);
    if (!b.rate || !n.rate || r.base <= 0 || r.now <= 0) {
      r.verdict = Verdict::failed;
      r.why = fmt::format("{} has no sustained rate: {}", b.rate ? "the new run" : "the base",
                          b.rate ? n.summary : b.summary);
    } else {
      judge(r, r.now / r.base - 1.0, std::max({o.threshold, spread(b), spread(n)}));
    }
    c.rows.push_back(std::move(r));
  }
  for (const auto& n : now.checks)
    if (std::none_of(base.checks.begin(), base.checks.end(), [&](const auto& b) { return b.kind == n.kind; }))
      c.rows.push_back({where, "stress", std::string(stress::to_string(n.kind)), stress_unit(n.unit), 0,
                        n.rate.value_or(0), 0, 0, Verdict::only_new, "not run in the base"});
}

}  // namespace

std::string_view to_string(Verdict v) {
  return util::name_of(kVerdictNames, v, "?");
}

int Comparison::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const CompareRow& r) { return r.verdict == v; }));
}

Comparison compare_reports(const bench::Report& base, const bench::Report& now, const CompareOptions& o) {
  Comparison c;
  note_runs(c, base.backend, now.backend, base.devices.size(), now.devices.size(), base.run_info, now.run_info, o);
  std::map<std::string, std::string> bv(base.versions.begin(), base.versions.end()),
      nv(now.versions.begin(), now.versions.end());
  for (const auto& [k, v] : bv)
    if (nv.count(k)) note_difference(c, k, v, nv[k], k.find("driver") != std::string::npos, o);
  const std::size_t devices = std::min(base.devices.size(), now.devices.size());
  for (std::size_t i = 0; i < devices; ++i) {
    const auto& a = base.devices[i].info;
    const auto& b = now.devices[i].info;
    note_difference(c, fmt::format("device {} card", i), a.name, b.name, true, o);
  }
  if (!c.refusals.empty()) return c;
  for (std::size_t i = 0; i < devices; ++i)
    compare_cases(c, fmt::format("device {}", i), cases_of(base.devices[i].results), cases_of(now.devices[i].results), o);
  compare_cases(c, "group", cases_of(base.group), cases_of(now.group), o);
  return c;
}

Comparison compare_reports(const stress::Report& base, const stress::Report& now, const CompareOptions& o) {
  Comparison c;
  note_runs(c, base.backend, now.backend, base.devices.size(), now.devices.size(), base.run_info, now.run_info, o);
  note_difference(c, "level", std::to_string(base.level), std::to_string(now.level), true, o);
  note_difference(c, "planned seconds", fmt::format("{:.0f}", base.planned_s), fmt::format("{:.0f}", now.planned_s),
                  false, o);
  const std::size_t devices = std::min(base.devices.size(), now.devices.size());
  for (std::size_t i = 0; i < devices; ++i)
    note_difference(c, fmt::format("device {} card", i), base.devices[i].name, now.devices[i].name, true, o);
  if (!c.refusals.empty()) return c;
  for (std::size_t i = 0; i < devices; ++i)
    compare_checks(c, fmt::format("device {}", base.devices[i].index), base.devices[i], now.devices[i], o);
  return c;
}

Result<Comparison> compare_files(const std::string& base_path, const std::string& new_path, const CompareOptions& o) {
  std::vector<ResultFile> files;
  for (const auto& path : {base_path, new_path}) {
    auto file = read_result(path);
    if (!file) return Error{file.error().message};
    if (file->kind != ResultKind::bench && file->kind != ResultKind::stress)
      return Error{fmt::format("{} is a `dcukit {}` result; dcukit compare reads two `dcukit bench --json` or two "
                               "`dcukit stress --json` files{}",
                               path, to_string(file->kind),
                               file->kind == ResultKind::load ? " (load results: dcukit load compare)" : "")};
    files.push_back(std::move(*file));
  }
  if (files[0].kind != files[1].kind)
    return Error{fmt::format("{} is a `dcukit {}` result and {} a `dcukit {}` one: compare two of the same command",
                             base_path, to_string(files[0].kind), new_path, to_string(files[1].kind))};
  Comparison c = files[0].kind == ResultKind::bench
                     ? compare_reports(std::get<bench::Report>(files[0].report), std::get<bench::Report>(files[1].report), o)
                     : compare_reports(std::get<stress::Report>(files[0].report),
                                       std::get<stress::Report>(files[1].report), o);
  c.base_origin = base_path;
  c.new_origin = new_path;
  return c;
}

core::Table to_table(const Comparison& c) {
  core::Table t;
  t.title = fmt::format("{} -> {}", c.base_origin, c.new_origin);
  t.columns = {{"where", core::Align::left},  {"case", core::Align::left}, {"base"}, {"new"},
               {"change"},                    {"noise"},                   {"verdict", core::Align::left}};
  for (const auto& r : c.rows) {
    const bool measured =
        (r.verdict == Verdict::same || r.verdict == Verdict::better || r.verdict == Verdict::worse) && r.why.empty();
    const bool rated = r.unit != bench::RateUnit::none;
    t.add_row({r.where, r.benchmark + " " + r.name,
               r.verdict == Verdict::only_new || !rated ? "-" : format_rate(r.base, r.unit),
               r.verdict == Verdict::only_base || !rated ? "-" : format_rate(r.now, r.unit),
               measured ? fmt::format("{:+.1f}%", 100 * r.change) : "-",
               measured ? fmt::format("{:.1f}%", 100 * r.noise) : "-",
               measured ? std::string(to_string(r.verdict)) : fmt::format("{}: {}", to_string(r.verdict), r.why)});
  }
  for (const auto& [what, change] : c.differences) t.notes.push_back(fmt::format("{}: {}", what, change));
  for (const auto& why : c.refusals) t.notes.push_back("not compared: " + why + " (--force compares anyway)");
  t.notes.push_back(fmt::format("{} worse, {} better, {} same beyond the noise (the larger of --threshold and each "
                                "run's own spread); change is signed so that positive is better",
                                c.count(Verdict::worse), c.count(Verdict::better), c.count(Verdict::same)));
  return t;
}

std::string render_markdown(const Comparison& c) {
  return "## dcukit compare\n\n" + core::render_markdown(to_table(c));
}

nlohmann::ordered_json to_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["base"] = c.base_origin;
  j["new"] = c.new_origin;
  j["comparable"] = c.refusals.empty();
  j["refusals"] = c.refusals;
  auto& diffs = j["differences"] = nlohmann::ordered_json::array();
  for (const auto& [what, change] : c.differences) diffs.push_back({{"what", what}, {"change", change}});
  auto& rows = j["cases"] = nlohmann::ordered_json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"where", r.where},
                    {"benchmark", r.benchmark},
                    {"name", r.name},
                    {"unit", bench::to_string(r.unit)},
                    {"base", r.base},
                    {"new", r.now},
                    {"change", r.change},
                    {"noise", r.noise},
                    {"verdict", to_string(r.verdict)},
                    {"why", r.why}});
  j["worse"] = c.count(Verdict::worse);
  j["better"] = c.count(Verdict::better);
  return j;
}

}  // namespace dcukit::flows
