// `dcukit slurm-check [--tier health|prolog|epilog] [-- PATROL OPTIONS]`: parsing and exit codes;
// the check is src/flows/slurm_check.cpp.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/output.h"
#include "cli/presentation.h"
#include "flows/slurm_check.h"
#include "util/duration.h"

namespace dcukit::cli {
namespace {

constexpr const char* kSlurmCheck = "slurm-check";

struct SlurmCheckArgs {
  flows::SlurmCheckRequest request;
  std::string tier = "health", deadline = "50s", command;
  Output json{"--json", ""};
};

ExitCode run_slurm_check(SlurmCheckArgs& a) {
  auto& r = a.request;
  const auto tier = flows::parse_node_tier(a.tier);
  if (!tier) return fail(kSlurmCheck, ExitCode::bad_input, fmt::format("--tier {}: give health, prolog or epilog", a.tier));
  r.tier = *tier;
  const auto deadline = util::parse_duration(a.deadline);
  if (!deadline) return fail(kSlurmCheck, ExitCode::bad_input, fmt::format("--deadline {}: {}", a.deadline, deadline.error().message));
  r.deadline = *deadline;
  if (Status s = flows::check_slurm_check(r); !s) return fail(kSlurmCheck, ExitCode::bad_input, s.message());
  if (Status s = check_outputs({a.json}); !s) return fail(kSlurmCheck, ExitCode::bad_input, s.message());
  r.self = self_path();
  auto report = flows::run_slurm_check(r);
  report.run_info.command = a.command;
  if (!a.json.to_stdout()) {
    std::string text = flows::render_text(report);
    if (presentation().quiet) text = text.substr(0, text.find('\n') + 1);  // the verdict line, for slurmd's log
    std::fputs(text.c_str(), stdout);
  }
  std::fflush(stdout);
  if (!emit(kSlurmCheck, a.json, a.json.asked() ? flows::render_json(report) : std::string())) return ExitCode::failed;
  return static_cast<ExitCode>(report.exit_code());
}

}  // namespace

void setup_slurm_check(CLI::App& app, Runner& runner) {
  auto a = std::make_shared<SlurmCheckArgs>();
  auto* sub = app.add_subcommand(
      "slurm-check",
      "A node's health check for Slurm (HealthCheckProgram, Prolog, Epilog): drains its node with a 'dcukit:' "
      "reason on a failure, resumes it when it passes only if the reason is its own");
  sub->footer(
      "Tiers: health (dcukit patrol: the cards, residue, the service if --url), prolog (and stress level 1), epilog "
      "(and stress level 2 in what the deadline leaves). The options after -- go to patrol (--expect-devices 8, "
      "--limit temperature=85,95, --url ...). The node: --node, else $SLURMD_NODENAME, else this host's short name. "
      "A reason set by someone else is never touched. Exit status, as LBNL NHC: 0 passed; 1 failed (drained, or "
      "left drained by another's reason); 2 bad input; 3 nothing could be judged (the node is left as it is).");
  sub->add_option("--tier", a->tier, "health, prolog or epilog (default health)");
  sub->add_option("--deadline", a->deadline, "The whole check, scontrol included (default 50s: Slurm kills a health check at 60s)");
  sub->add_option("--node", a->request.node, "The node to drain or resume (default $SLURMD_NODENAME, else this host)");
  sub->add_option("--scontrol", a->request.scontrol, "The scontrol to run (default: scontrol on PATH)");
  sub->add_option("--out", a->request.out, "Keep patrol's and stress's JSON in this folder (default: not kept)");
  sub->add_flag("--dry-run", a->request.dry_run, "Judge and say what would change; change nothing");
  add_output(sub, a->json, "The verdict, the checks, the node's state before and the action");
  add_presentation(sub, "");
  sub->add_option("patrol", a->request.patrol_args, "Options for dcukit patrol (after --)");
  sub->callback([a, &runner] {
    a->command = command_line();
    runner = [a] { return run_slurm_check(*a); };
  });
}

}  // namespace dcukit::cli
