#include "flows/tune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flows/results.h"
#include "flows/tune_setting.h"
#include "flows/up_steps.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::flows {
namespace {

std::string setting_name(const std::vector<std::string>& flags) {
  return flags.empty() ? "(defaults)" : fmt::format("{}", fmt::join(flags, " "));
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

nlohmann::ordered_json row_json(const TuneRow& r) {
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const auto& p : r.probes) probes.push_back({{"rate", p.rate}, {"attained", p.attained}});
  return {{"flags", r.flags},         {"outcome", r.outcome},         {"why", r.why},
          {"best_rate", r.best_rate}, {"memory_peak", r.memory_peak}, {"probes", probes}};
}

nlohmann::ordered_json probe_json(const std::vector<UtilizationTry>& tries) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& t : tries) out.push_back({{"value", t.value}, {"started", t.started}, {"why", t.why}});
  return out;
}

/// The rows an earlier run of the same folder finished (OUT/tune.jsonl), and its utilization probe.
std::vector<TuneRow> earlier_rows(const std::string& path, std::vector<UtilizationTry>& probe) {
  std::vector<TuneRow> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = util::parse_json(line);
    if (j.is_object() && j.contains("utilization_probe") && j["utilization_probe"].is_array()) {
      probe.clear();
      for (const auto& t : j["utilization_probe"])
        if (t.is_object()) probe.push_back({t.value("value", 0.0), t.value("started", false), util::string_at(t, "why")});
      continue;
    }
    if (!j.is_object() || !j.contains("flags") || !j["flags"].is_array()) continue;
    TuneRow r;
    for (const auto& f : j["flags"])
      if (f.is_string()) r.flags.push_back(f.get<std::string>());
    r.outcome = util::string_at(j, "outcome");
    r.why = util::string_at(j, "why");
    r.best_rate = j.value("best_rate", 0.0);
    r.memory_peak = j.value("memory_peak", 0.0);
    if (j.contains("probes") && j["probes"].is_array())
      for (const auto& p : j["probes"])
        if (p.is_object()) r.probes.push_back({p.value("rate", 0.0), p.value("attained", 0.0)});
    r.resumed = true;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> expand_grid(const std::vector<std::pair<std::string, std::vector<std::string>>>& grid) {
  std::vector<std::vector<std::string>> out{{}};
  for (const auto& [name, values] : grid) {
    std::vector<std::vector<std::string>> next;
    for (const auto& prefix : out)
      for (const auto& v : values) {
        auto flags = prefix;
        flags.push_back("--" + name);
        flags.push_back(v);
        next.push_back(std::move(flags));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> default_grid(Engine e) {
  switch (e) {
    case Engine::vllm:  // --gpu-memory-utilization is probed first (TuneRequest::utilization_from)
      return {{"max-num-seqs", {"64", "128", "256"}},
              {"max-num-batched-tokens", {"2048", "8192"}}};
    case Engine::sglang:
      return {{"max-running-requests", {"64", "128", "256"}}};
    case Engine::llama_cpp:
      return {{"parallel", {"1", "2", "4", "8"}}, {"ctx-size", {"4096", "8192"}}};
    case Engine::command:
      return {};
  }
  return {};
}

Status check_tune(const TuneRequest& r) {
  if (r.slo.empty()) return Error{"--slo: tune finds the highest rate within an SLO; give one, e.g. ttft=500,tpot=50"};
  if (r.base.engine == Engine::command && r.grid.empty())
    return Error{"--grid: a command after -- has no default grid; give NAME=V1,V2 (each becomes --NAME V)"};
  for (const auto& [name, values] : r.grid)
    if (name.empty() || values.empty()) return Error{fmt::format("--grid {}: give NAME=V1,V2,...", name)};
  return check_up(r.base);
}

TuneReport run_tune(const TuneRequest& r) {
  namespace fs = std::filesystem;
  TuneReport report;
  report.run_info = core::collect_run_info("dcukit tune", "");
  const auto start = TuneClock::now();
  const auto say = [&](const std::string& line) {
    if (r.base.say) r.base.say(line);
  };
  auto base = engine_base_command(r.base);
  const auto grid = expand_grid(r.grid.empty() ? default_grid(r.base.engine) : r.grid);
  const std::string jsonl = (fs::path(r.base.out) / "tune.jsonl").string();
  const auto earlier = earlier_rows(jsonl, report.utilization_probe);
  if (base && r.utilization_from > 0) {
    if (report.utilization_probe.empty()) {
      auto first = *base;
      first.insert(first.end(), grid.front().begin(), grid.front().end());
      report.utilization_probe = probe_utilization(r, first);
      std::ofstream(jsonl, std::ios::app) << nlohmann::ordered_json{{"utilization_probe", probe_json(report.utilization_probe)}}.dump()
                                          << "\n";
    }
    const auto& last = report.utilization_probe.back();
    if (!last.started) {
      report.interrupted = r.base.stop && r.base.stop->stop_requested();
      return report;  // no setting can start: the probe's last try says why
    }
    report.utilization = last.value;
    base->insert(base->end(), {"--gpu-memory-utilization", fmt::format("{:.2f}", last.value)});
  }
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const auto& flags = grid[k];
    bool done_before = false;
    for (const auto& e : earlier)
      if (e.flags == flags) {
        report.rows.push_back(e);
        done_before = true;
      }
    if (done_before) continue;
    TuneRow row;
    row.flags = flags;
    if (r.base.stop && r.base.stop->stop_requested()) {
      report.interrupted = true;
      break;
    }
    if (TuneClock::now() - start > r.budget || !base) {
      report.over_budget = report.over_budget || !!base;
      row.outcome = "not reached";
      row.why = base ? "the budget ran out first" : base.error().message;
      report.rows.push_back(row);
      continue;
    }
    say(fmt::format("setting {} of {}: {}", k + 1, grid.size(), setting_name(flags)));
    auto command = *base;
    command.insert(command.end(), flags.begin(), flags.end());
    row = run_setting(r, command, (fs::path(r.base.out) / fmt::format("setting-{}", k + 1)).string(), start);
    row.flags = flags;
    std::ofstream(jsonl, std::ios::app) << row_json(row).dump() << "\n";
    report.rows.push_back(row);
  }
  for (std::size_t i = 0; i < report.rows.size(); ++i)
    if (report.rows[i].outcome == "served" && report.rows[i].best_rate > 0 &&
        (report.best < 0 || report.rows[i].best_rate > report.rows[static_cast<std::size_t>(report.best)].best_rate))
      report.best = static_cast<int>(i);
  if (report.best >= 0 && base) {
    std::string cmd;
    for (const auto& a : *base) cmd += shell_quote(a) + " ";
    for (const auto& a : report.rows[static_cast<std::size_t>(report.best)].flags) cmd += shell_quote(a) + " ";
    cmd.pop_back();
    report.script = (fs::path(r.base.out) / "best.sh").string();
    std::ofstream(report.script) << "#!/bin/sh\n# dcukit tune's best setting: "
                                 << report.rows[static_cast<std::size_t>(report.best)].best_rate
                                 << " requests/s within " << r.slo << "\nexec " << cmd << "\n";
    fs::permissions(report.script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
  }
  return report;
}

std::string render_text(const TuneReport& r) {
  std::string out;
  for (const auto& t : r.utilization_probe)
    out += fmt::format("--gpu-memory-utilization {:.2f}: {}\n", t.value, t.started ? "the engine started" : "refused: " + t.why);
  if (!r.utilization_probe.empty() && !r.utilization_probe.back().started)
    return out + "no memory utilization tried started the engine: no setting was searched\n";
  out += fmt::format("{:<36} {:<12} {:>10} {:>7}  {}\n", "setting", "outcome", "best req/s",
                     "memory", "probes (rate: share within the SLO)");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    std::string probes;
    for (const auto& p : row.probes) probes += fmt::format("{}{:.3g}: {:.0f}%", probes.empty() ? "" : ", ", p.rate, p.attained * 100);
    out += fmt::format("{:<36} {:<12} {:>10.3g} {:>7}  {}{}{}\n", setting_name(row.flags) + (static_cast<int>(i) == r.best ? " *" : ""),
                       row.outcome, row.best_rate, row.memory_peak > 0 ? fmt::format("{:.0f}%", row.memory_peak * 100) : "-", probes, row.why.empty() ? "" : (probes.empty() ? "" : "; ") + row.why,
                       row.resumed ? " (earlier run)" : "");
  }
  if (r.best >= 0) out += fmt::format("best (*): its launch script is {}\n", r.script);
  else out += "no setting met the SLO at any rate tried\n";
  if (r.over_budget) out += "the budget ran out: the settings not reached are listed; run again with the same --out to go on\n";
  return out;
}

std::string render_json(const TuneReport& r) {
  nlohmann::ordered_json j = core::report_head(r.run_info, 1);
  j["best"] = r.best >= 0 ? nlohmann::ordered_json(row_json(r.rows[static_cast<std::size_t>(r.best)])) : nlohmann::ordered_json();
  j["script"] = r.script;
  j["utilization_probe"] = probe_json(r.utilization_probe);
  j["utilization"] = r.utilization;
  j["interrupted"] = r.interrupted;
  j["over_budget"] = r.over_budget;
  j["settings"] = nlohmann::ordered_json::array();
  for (const auto& row : r.rows) j["settings"].push_back(row_json(row));
  return util::json_document(j);
}

}  // namespace dcukit::flows
