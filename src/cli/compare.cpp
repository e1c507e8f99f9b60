// `dcukit compare BASE NEW`: parsing and exit codes; the engine is src/flows/compare.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "flows/compare.h"
#include "flows/results.h"
#include "load/compare.h"
#include "util/json_text.h"

namespace dcukit::cli {
namespace {

constexpr const char* kCompare = "compare";

struct CompareArgs {
  std::string base, now;
  double threshold_percent = 3;
  bool fail_on_regression = false, force = false;
  Output json{"--json", ""}, markdown{"--markdown", ""};
};

/// Two load results: paired level by level, as `dcukit load compare` does, and each level's
/// headline metrics judged against the threshold; runs of different load settings refused.
ExitCode run_load_compare(const CompareArgs& a) {
  auto tables = load::compare_files(a.base, a.now);
  if (!tables) return fail(kCompare, ExitCode::bad_input, tables.error().message);
  auto judged = load::judge_files(a.base, a.now, a.threshold_percent / 100.0);
  if (!judged) return fail(kCompare, ExitCode::bad_input, judged.error().message);
  core::Table verdicts;
  verdicts.title = fmt::format("Beyond {:g}%: {} worse, {} better", a.threshold_percent, judged->count(-1),
                               judged->count(1));
  verdicts.columns = {{"level", core::Align::left}, {"metric", core::Align::left}, {"A"}, {"B"}, {"change"},
                      {"verdict", core::Align::left}};
  for (const auto& m : judged->metrics)
    if (m.verdict != 0)
      verdicts.add_row({m.level, m.metric, fmt::format("{:.2f}", m.a), fmt::format("{:.2f}", m.b),
                        fmt::format("{:+.1f}%", m.change * 100), m.verdict < 0 ? "worse" : "better"});
  verdicts.notes.push_back("change is signed so that positive is better (lower latency, higher throughput); a load run "
                           "keeps no repeats whose spread could widen the threshold, so it is --threshold alone");
  for (const auto& r : judged->refusals) verdicts.notes.push_back("load settings differ: " + r);
  tables->push_back(verdicts);
  if (!a.json.to_stdout() && !a.markdown.to_stdout())
    print_report([&] {
      std::string text;
      for (const auto& t : *tables) text += core::render_text(t) + "\n";
      return text;
    });
  std::string md;
  for (const auto& t : *tables) md += core::render_markdown(t) + "\n";
  nlohmann::ordered_json j = {{"base", a.base}, {"new", a.now}, {"threshold", a.threshold_percent / 100.0},
                              {"refusals", judged->refusals}, {"worse", judged->count(-1)}, {"better", judged->count(1)}};
  j["metrics"] = nlohmann::ordered_json::array();
  for (const auto& m : judged->metrics)
    j["metrics"].push_back({{"level", m.level}, {"metric", m.metric}, {"base", m.a}, {"new", m.b}, {"change", m.change},
                            {"verdict", m.verdict < 0 ? "worse" : (m.verdict > 0 ? "better" : "same")}});
  bool written = emit(kCompare, a.markdown, a.markdown.asked() ? md : std::string());
  written = emit(kCompare, a.json, a.json.asked() ? util::json_document(j) : std::string()) && written;
  if (!judged->refusals.empty() && !a.force)
    return fail(kCompare, ExitCode::bad_input,
                fmt::format("the runs are not comparable: {}; pass --force to compare them anyway",
                            judged->refusals.front()));
  if (!written) return ExitCode::failed;
  if (a.fail_on_regression && judged->count(-1) > 0) {
    print_error(kCompare, fmt::format("{} metric(s) regressed beyond {:g}%", judged->count(-1), a.threshold_percent));
    return ExitCode::failed;
  }
  return ExitCode::ok;
}

bool is_load(const std::string& path) {
  const auto r = flows::read_result(path);
  return r && r->kind == flows::ResultKind::load;
}

ExitCode run_compare(const CompareArgs& a) {
  if (Status s = check_outputs({a.json, a.markdown}); !s) return fail(kCompare, ExitCode::bad_input, s.message());
  if (is_load(a.base) || is_load(a.now)) return run_load_compare(a);
  flows::CompareOptions o;
  o.threshold = a.threshold_percent / 100.0;
  o.force = a.force;
  auto c = flows::compare_files(a.base, a.now, o);
  if (!c) return fail(kCompare, ExitCode::bad_input, c.error().message);
  if (!a.json.to_stdout() && !a.markdown.to_stdout())
    print_report([&] { return core::render_text(flows::to_table(*c)); });
  std::fflush(stdout);
  bool written = emit(kCompare, a.json, util::json_document(flows::to_json(*c)));
  written = emit(kCompare, a.markdown, a.markdown.asked() ? flows::render_markdown(*c) : std::string()) && written;
  if (!c->refusals.empty())
    return fail(kCompare, ExitCode::bad_input,
                fmt::format("the runs are not comparable: {}; pass --force to compare them anyway",
                            c->refusals.front()));
  const bool measured = c->count(flows::Verdict::same) + c->count(flows::Verdict::better) +
                            c->count(flows::Verdict::worse) >
                        0;
  if (!measured)
    return fail(kCompare, ExitCode::failed, "no case was measured in both runs: nothing was compared");
  if (!written) return ExitCode::failed;
  if (a.fail_on_regression && c->count(flows::Verdict::worse) > 0) {
    print_error(kCompare, fmt::format("{} case(s) regressed beyond the noise", c->count(flows::Verdict::worse)));
    return ExitCode::failed;
  }
  return ExitCode::ok;
}

}  // namespace

void setup_compare(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand(
      "compare", "Compare two `dcukit bench --json` runs case by case, or two `dcukit stress --json` runs check by "
      "check: the change, and regressions beyond the noise (two load results: level by level, as `load compare`)");
  sub->footer(
      "Exit status: 0 when compared (with --fail-on-regression: and nothing regressed); 1 when a case regressed "
      "under --fail-on-regression, or no case was measured in both; 2 for bad input, or runs of a different card, "
      "backend, device count or driver, or stress runs of another level (without --force). A stress check whose "
      "verdict got worse, or that found new errors, is a regression of its own. Two `dcukit load --json` results are paired level by level "
      "as `dcukit load compare` (kept) does, each level's latency and throughput judged against --threshold; runs of "
      "different load settings (model, lengths, dataset, prompts) are refused without --force.");
  sub->add_option("base", a->base, "The baseline result JSON")->required()->check(CLI::ExistingFile);
  sub->add_option("new", a->now, "The new result JSON")->required()->check(CLI::ExistingFile);
  sub->add_option("--threshold", a->threshold_percent,
                  "The smallest change that counts, in percent (default 3); a case's own spread raises it")
      ->transform(
          [](std::string s) {
            if (!s.empty() && s.back() == '%') s.pop_back();  // "3%" as well as "3"
            return s;
          },
          "", "percent")
      ->check(CLI::Range(0.0, 1000.0));
  sub->add_flag("--fail-on-regression", a->fail_on_regression, "Exit 1 when a case is worse beyond the noise (for CI)");
  sub->add_flag("--force", a->force, "Compare runs of different cards, backends or drivers anyway");
  add_output(sub, a->json, "Every case with its change and verdict as JSON");
  add_output(sub, a->markdown, "The table as Markdown");
  add_presentation(sub);
  sub->callback([a, &runner] { runner = [a] { return run_compare(*a); }; });
}

}  // namespace dcukit::cli
