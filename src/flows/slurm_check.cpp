#include "flows/slurm_check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "flows/results.h"
#include "flows/up_steps.h"
#include "util/json_text.h"
#include "util/host.h"
#include "util/process.h"

namespace dcukit::flows {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::string node_name(const SlurmCheckRequest& r) {
  if (!r.node.empty()) return r.node;
  if (const char* n = std::getenv("SLURMD_NODENAME"); n && *n) return n;
  return util::short_hostname();
}

/// The time until `end`, less `reserve` (kept for what comes after), never below 0.
std::chrono::milliseconds left(Clock::time_point end, std::chrono::milliseconds reserve = 0ms) {
  return std::max(0ms, std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()) - reserve);
}

/// One line, at most 200 characters: what a drain reason can hold.
std::string reason_text(const std::string& finding) {
  std::string s = "dcukit: " + finding;
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > 200) s = s.substr(0, 197) + "...";
  return s;
}

void judge_patrol(const SlurmCheckRequest& r, const std::string& dir, Clock::time_point end, SlurmCheckReport& out) {
  const std::string file = (std::filesystem::path(dir) / "patrol.json").string();
  std::vector<std::string> argv{r.self, "patrol", "--json", file, "-q"};
  argv.insert(argv.end(), r.patrol_args.begin(), r.patrol_args.end());
  const auto c = util::run_capture(argv, left(end, 5000ms));
  auto res = read_result(file);
  if (!res || !std::holds_alternative<patrol::Report>(res->report)) {
    out.verdict = NodeVerdict::unknown;
    out.finding = fmt::format("dcukit patrol wrote no result ({}): {}", c ? c->status.describe() : c.error().message,
                              c ? tail_lines(c->err, 2) : "");
    out.checks.push_back("patrol: " + out.finding);
    return;
  }
  const auto& p = std::get<patrol::Report>(res->report);
  out.checks.push_back(fmt::format("patrol: {}, {} device(s)", patrol::to_string(p.state), p.devices));
  const auto first = [&](patrol::State s) -> std::string {
    for (const auto& f : p.findings)
      if (f.state == s) return fmt::format("{} {}: {}", f.subject, f.check, f.message);
    return "";
  };
  if (p.state == patrol::State::critical) {
    out.verdict = NodeVerdict::fail;
    out.finding = first(patrol::State::critical);
  } else if (p.state == patrol::State::unknown) {
    out.verdict = NodeVerdict::unknown;
    out.finding = first(patrol::State::unknown);
  } else {
    out.verdict = NodeVerdict::pass;
  }
}

void judge_stress(const SlurmCheckRequest& r, const std::string& dir, Clock::time_point end, SlurmCheckReport& out) {
  const int level = r.tier == NodeTier::prolog ? 1 : 2;
  const std::string file = (std::filesystem::path(dir) / "stress.json").string();
  std::vector<std::string> argv{r.self, "stress", "--level", std::to_string(level), "--json", file, "-q", "--progress", "none"};
  if (level == 2) {  // its two minutes, fitted to what the deadline leaves
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left(end, 15000ms)).count();
    argv.insert(argv.end(), {"--duration", fmt::format("{}s", std::max<long long>(1, seconds))});
  }
  const auto c = util::run_capture(argv, left(end, 5000ms));
  auto res = read_result(file);
  if (!res || !std::holds_alternative<stress::Report>(res->report)) {
    out.verdict = NodeVerdict::unknown;
    out.finding = fmt::format("dcukit stress level {} wrote no result ({}): {}", level,
                              c ? c->status.describe() : c.error().message, c ? tail_lines(c->err, 2) : "");
    out.checks.push_back("stress: " + out.finding);
    return;
  }
  const auto& s = std::get<stress::Report>(res->report);
  out.checks.push_back(fmt::format("stress level {}: {} ({} device(s), {} backend)", level, stress::to_string(s.verdict()),
                                   s.devices.size(), device::to_string(s.backend)));
  for (const auto& d : s.devices)
    for (const auto& check : d.checks)
      if (check.verdict == stress::Verdict::fail) {
        out.verdict = NodeVerdict::fail;
        out.finding = fmt::format("device {} {}: {} (action: {})", d.index, stress::to_string(check.kind), check.summary,
                                  stress::to_string(check.action));
        return;
      }
}

Result<util::Captured> scontrol(const SlurmCheckRequest& r, const std::vector<std::string>& args, Clock::time_point end) {
  std::vector<std::string> argv{r.scontrol};
  argv.insert(argv.end(), args.begin(), args.end());
  auto c = util::run_capture(argv, std::max(1000ms, std::min(left(end), 10000ms)));
  if (!c) return c.error();
  if (!c->status.success())
    return Error{fmt::format("{} {}: {}: {}", r.scontrol, args.empty() ? "" : args.front(), c->status.describe(),
                             tail_lines(c->err + c->out, 2))};
  return c;
}

}  // namespace

std::string_view to_string(NodeTier t) {
  switch (t) {
    case NodeTier::health: return "health";
    case NodeTier::prolog: return "prolog";
    case NodeTier::epilog: return "epilog";
  }
  return "health";
}

std::optional<NodeTier> parse_node_tier(std::string_view s) {
  for (auto t : {NodeTier::health, NodeTier::prolog, NodeTier::epilog})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

std::string_view to_string(NodeVerdict v) {
  switch (v) {
    case NodeVerdict::pass: return "pass";
    case NodeVerdict::fail: return "fail";
    case NodeVerdict::unknown: return "unknown";
  }
  return "unknown";
}

Result<NodeState> parse_node_state(const std::string& line) {
  NodeState s;
  const auto st = line.find("State=");
  if (st == std::string::npos) return Error{fmt::format("no State= in scontrol's line: {}", line.substr(0, 200))};
  s.state = line.substr(st + 6, line.find_first_of(" \n", st) - st - 6);
  if (const auto at = line.find(" Reason="); at != std::string::npos) {
    std::string reason = line.substr(at + 8);
    if (const auto nl = reason.find('\n'); nl != std::string::npos) reason.resize(nl);
    // scontrol appends " [user@2026-12-06T04:27:07]"
    if (const auto open = reason.rfind(" ["); open != std::string::npos && reason.back() == ']') reason.resize(open);
    if (reason != "(null)") s.reason = reason;
  }
  return s;
}

int SlurmCheckReport::exit_code() const {
  switch (verdict) {
    case NodeVerdict::pass: return action.rfind("left alone", 0) == 0 ? 1 : 0;
    case NodeVerdict::fail: return 1;
    case NodeVerdict::unknown: return 3;
  }
  return 3;
}

Status check_slurm_check(const SlurmCheckRequest& r) {
  // 5 s of the deadline are kept for scontrol: below 10 s patrol would have too little to read the cards
  if (r.deadline < 10s) return Error{"--deadline: give at least 10s (Slurm kills a health check after 60s: 50s fits)"};
  if (r.tier == NodeTier::epilog && r.deadline < 30s)
    return Error{"--deadline: the epilog tier runs stress level 2, which needs at least 30s"};
  return {};
}

SlurmCheckReport run_slurm_check(const SlurmCheckRequest& r) {
  namespace fs = std::filesystem;
  const auto start = Clock::now(), end = start + r.deadline;
  SlurmCheckReport out;
  out.run_info = core::collect_run_info("dcukit slurm-check", "");
  out.node = node_name(r);
  out.tier = r.tier;
  std::string dir = r.out;
  std::error_code ec;
  if (dir.empty()) dir = (fs::temp_directory_path(ec) / fmt::format("dcukit-slurm-check-{}", getpid())).string();
  fs::create_directories(dir, ec);
  judge_patrol(r, dir, end, out);
  if (out.verdict == NodeVerdict::pass && r.tier != NodeTier::health) judge_stress(r, dir, end, out);
  if (r.out.empty()) fs::remove_all(dir, ec);
  // The node's state, then the one change the verdict calls for.
  if (auto shown = scontrol(r, {"show", "node", out.node, "-o"}, end); !shown) {
    out.scontrol_error = shown.error().message;
  } else if (auto st = parse_node_state(shown->out); !st) {
    out.scontrol_error = st.error().message;
  } else {
    out.before = *st;
  }
  std::vector<std::string> change;
  if (!out.before) {
    out.action = "none: the node's state could not be read";
  } else if (out.verdict == NodeVerdict::fail) {
    const std::string reason = reason_text(out.finding);
    if (out.before->drained() && !out.before->ours())
      out.action = fmt::format("left alone: drained by another's reason ({})", out.before->reason);
    else if (out.before->drained() && out.before->reason == reason)
      out.action = "none: already drained for this";
    else {
      out.action = out.before->drained() ? "drain reason updated" : "drained";
      change = {"update", "NodeName=" + out.node, "State=DRAIN", "Reason=" + reason};
    }
  } else if (out.verdict == NodeVerdict::pass && out.before->drained()) {
    if (out.before->ours()) {
      out.action = "resumed";
      change = {"update", "NodeName=" + out.node, "State=RESUME"};
    } else {
      out.action = fmt::format("left alone: drained by another's reason ({})", out.before->reason);
    }
  } else {
    out.action = "none";
  }
  if (!change.empty()) {
    if (r.dry_run) out.action = "would be " + out.action + " (--dry-run)";
    else if (auto c = scontrol(r, change, end); !c) {
      out.scontrol_error = c.error().message;
      out.action = "none: " + out.action + " failed";
    }
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

std::string render_text(const SlurmCheckReport& r) {
  std::string s = fmt::format("dcukit slurm-check {} on {}: {}{}\n", to_string(r.tier), r.node, to_string(r.verdict),
                              r.finding.empty() ? "" : ": " + r.finding);
  for (const auto& c : r.checks) s += "  " + c + "\n";
  if (r.before) s += fmt::format("  node before: {}{}\n", r.before->state, r.before->reason.empty() ? "" : " (" + r.before->reason + ")");
  s += fmt::format("  action: {}\n", r.action);
  if (!r.scontrol_error.empty()) s += "  scontrol: " + r.scontrol_error + "\n";
  return s;
}

std::string render_json(const SlurmCheckReport& r) {
  nlohmann::ordered_json j = core::report_head(r.run_info, 1);
  j["node"] = r.node;
  j["tier"] = std::string(to_string(r.tier));
  j["verdict"] = std::string(to_string(r.verdict));
  j["finding"] = r.finding;
  j["checks"] = r.checks;
  j["state_before"] = r.before ? r.before->state : "";
  j["reason_before"] = r.before ? r.before->reason : "";
  j["action"] = r.action;
  j["scontrol_error"] = r.scontrol_error;
  j["seconds"] = r.seconds;
  j["exit_code"] = r.exit_code();
  return util::json_document(j);
}

}  // namespace dcukit::flows
