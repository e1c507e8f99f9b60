#include "flows/tune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "flows/results.h"
#include "flows/up_steps.h"
#include "util/json_text.h"
#include "util/signals.h"

namespace dcukit::flows {
namespace {

using Clock = std::chrono::steady_clock;

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
  return {{"flags", r.flags}, {"outcome", r.outcome}, {"why", r.why}, {"best_rate", r.best_rate}, {"probes", probes}};
}

/// The rows an earlier run of the same folder finished (OUT/tune.jsonl).
std::vector<TuneRow> earlier_rows(const std::string& path) {
  std::vector<TuneRow> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = util::parse_json(line);
    if (!j.is_object() || !j.contains("flags") || !j["flags"].is_array()) continue;
    TuneRow r;
    for (const auto& f : j["flags"])
      if (f.is_string()) r.flags.push_back(f.get<std::string>());
    r.outcome = util::string_at(j, "outcome");
    r.why = util::string_at(j, "why");
    r.best_rate = j.value("best_rate", 0.0);
    if (j.contains("probes") && j["probes"].is_array())
      for (const auto& p : j["probes"])
        if (p.is_object()) r.probes.push_back({p.value("rate", 0.0), p.value("attained", 0.0)});
    r.resumed = true;
    out.push_back(std::move(r));
  }
  return out;
}

/// One probe: `requests` at `rate` a second; the share that met the SLO, or an error.
Result<double> tune_probe(UpContext& ctx, const TuneRequest& r, double rate, const std::string& tag) {
  const std::string file = ctx.out(fmt::format("load-{}.json", tag));
  const int n = std::max(r.requests, static_cast<int>(std::ceil(rate * 2)));
  const auto c = ctx.run_dcukit({"load", "--url", ctx.report().url, "-r", fmt::format("{:g}", rate), "-n",
                                 std::to_string(n), "--input-len", "64", "--output-len", "16", "--timeout", "60",
                                 "--slo", r.slo, "--json", file, "-q", "--progress", "none"},
                                std::chrono::minutes(10), "load-" + tag);
  auto res = read_result(file);
  if (!res) return Error{fmt::format("dcukit load at {:g}/s wrote no result ({}): {}", rate, c.status.describe(),
                                     tail_lines(c.err, 2))};
  const auto& l = std::get<load::Report>(res->report);
  if (l.levels.empty()) return Error{fmt::format("dcukit load at {:g}/s measured no level", rate)};
  const auto& level = l.levels.front();
  // good requests = goodput x duration, as load computes it; failed requests count against
  if (level.num_prompts == 0 || level.request_throughput <= 0 || !level.request_goodput) return 0.0;
  const double good = *level.request_goodput / level.request_throughput * static_cast<double>(level.completed);
  return good / static_cast<double>(level.num_prompts);
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
    case Engine::vllm:  // seed 004: no more than 0.95 of a DCU's memory
      return {{"gpu-memory-utilization", {"0.95", "0.90"}},
              {"max-num-seqs", {"64", "128", "256"}},
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
  const auto start = Clock::now();
  const auto say = [&](const std::string& s) {
    if (r.base.say) r.base.say(s);
  };
  const auto base = engine_base_command(r.base);
  const auto grid = expand_grid(r.grid.empty() ? default_grid(r.base.engine) : r.grid);
  const std::string jsonl = (fs::path(r.base.out) / "tune.jsonl").string();
  const auto earlier = earlier_rows(jsonl);
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
    if (Clock::now() - start > r.budget || !base) {
      report.over_budget = report.over_budget || !!base;
      row.outcome = "not reached";
      row.why = base ? "the budget ran out first" : base.error().message;
      report.rows.push_back(row);
      continue;
    }
    UpRequest rq = r.base;
    rq.engine = Engine::command;
    rq.max_restarts = 0;  // a setting that crashes is rejected, not restarted
    rq.command = *base;
    rq.command.insert(rq.command.end(), flags.begin(), flags.end());
    rq.out = (fs::path(r.base.out) / fmt::format("setting-{}", k + 1)).string();
    std::error_code ec;
    fs::create_directories(rq.out, ec);
    UpReport up;
    up.url = fmt::format("http://{}:{}", rq.host, rq.port);
    {
      UpContext ctx(rq, up);  // its end stops guard, and the engine, completely
      say(fmt::format("setting {} of {}: {}", k + 1, grid.size(), setting_name(flags)));
      const auto served = serve_step(ctx);
      if (served.outcome != StepOutcome::done) {
        row.outcome = "rejected";
        std::ifstream log(ctx.out("service.log"));
        const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        const bool oom = text.find("out of memory") != std::string::npos || text.find("OutOfMemory") != std::string::npos;
        row.why = (oom ? "out of memory: " : "") + served.detail;
      } else {
        row.outcome = "served";
        // Bracketing: double the rate while it meets the SLO, then halve the gap three times.
        double lo = 0, hi = 0;
        for (double rate = 1; rate <= r.max_rate; rate *= 2) {
          if (Clock::now() - start > r.budget || ctx.stopped()) break;
          auto a = tune_probe(ctx, r, rate, fmt::format("{:g}", rate));
          if (!a) {
            row.why = a.error().message;
            break;
          }
          row.probes.push_back({rate, *a});
          say(fmt::format("  {:g}/s: {:.0f}% within the SLO", rate, *a * 100));
          if (*a < r.attain) {
            hi = rate;
            break;
          }
          lo = rate;
        }
        for (int i = 0; i < 3 && hi > 0 && lo > 0 && Clock::now() - start <= r.budget && !ctx.stopped(); ++i) {
          const double mid = std::sqrt(lo * hi);
          auto a = tune_probe(ctx, r, mid, fmt::format("{:.3g}", mid));
          if (!a) break;
          row.probes.push_back({mid, *a});
          (*a >= r.attain ? lo : hi) = mid;
        }
        row.best_rate = lo;
      }
    }
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
  std::string out = fmt::format("{:<36} {:<12} {:>10}  {}\n", "setting", "outcome", "best req/s", "probes (rate: share within the SLO)");
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    std::string probes;
    for (const auto& p : row.probes) probes += fmt::format("{}{:.3g}: {:.0f}%", probes.empty() ? "" : ", ", p.rate, p.attained * 100);
    out += fmt::format("{:<36} {:<12} {:>10.3g}  {}{}{}\n", setting_name(row.flags) + (static_cast<int>(i) == r.best ? " *" : ""),
                       row.outcome, row.best_rate, probes, row.why.empty() ? "" : (probes.empty() ? "" : "; ") + row.why,
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
  j["interrupted"] = r.interrupted;
  j["over_budget"] = r.over_budget;
  j["settings"] = nlohmann::ordered_json::array();
  for (const auto& row : r.rows) j["settings"].push_back(row_json(row));
  return util::json_document(j);
}

}  // namespace dcukit::flows
