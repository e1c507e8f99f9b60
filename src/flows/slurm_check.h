#pragma once
// `dcukit slurm-check`: a node's health check for Slurm, fit for HealthCheckProgram, Prolog and
// Epilog, in the manner of LBNL NHC. Within a deadline under Slurm's 60 s, it inspects the node
// (`dcukit patrol` with the options given after --), and at the prolog and epilog tiers proves
// the cards too (`dcukit stress` level 1, level 2). On a failure it drains its own node with a
// reason that starts with "dcukit:" and names the finding; when the node passes again it resumes
// the node only if the drain reason is its own; a reason set by someone else is never touched.
// Every scontrol call and every child has a deadline.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/run_info.h"
#include "util/result.h"

namespace dcukit::flows {

enum class NodeTier { health, prolog, epilog };
std::string_view to_string(NodeTier t);
std::optional<NodeTier> parse_node_tier(std::string_view s);

struct SlurmCheckRequest {
  std::string self;  ///< the dcukit binary
  NodeTier tier = NodeTier::health;
  std::chrono::milliseconds deadline{50'000};  ///< the whole check, scontrol included
  std::string node;                            ///< "": $SLURMD_NODENAME, else this host's short name
  std::string scontrol = "scontrol";
  std::vector<std::string> patrol_args;  ///< passed to `dcukit patrol` (--expect-devices 8, --limit ...)
  std::string out;                       ///< where the children's JSON goes ("": a temporary folder)
  bool dry_run = false;                  ///< judge and say what it would do; change nothing
};

/// The node's state as `scontrol show node` prints it.
struct NodeState {
  std::string state;   ///< "IDLE+DRAIN", "MIXED", ...
  std::string reason;  ///< without scontrol's " [user@time]"
  bool drained() const { return state.find("DRAIN") != std::string::npos; }
  bool ours() const { return reason.rfind("dcukit:", 0) == 0; }
};

/// Reads `scontrol show node NAME -o`'s one line; an Error when it has no State=.
Result<NodeState> parse_node_state(const std::string& line);

enum class NodeVerdict { pass, fail, unknown };
std::string_view to_string(NodeVerdict v);

struct SlurmCheckReport {
  core::RunInfo run_info;
  std::string node;
  NodeTier tier = NodeTier::health;
  NodeVerdict verdict = NodeVerdict::unknown;
  std::string finding;  ///< fail: the first failed check; unknown: why nothing could be judged
  std::vector<std::string> checks;  ///< one line a check run: "patrol: OK ...", "stress level 1: pass"
  std::optional<NodeState> before;
  std::string action;  ///< "drained", "resumed", "drain reason updated", "none", "left alone: ..."
  std::string scontrol_error;  ///< a scontrol call that failed
  double seconds = 0;
  /// NHC's: 0 passed, 1 failed (drained, or left drained by another's reason), 3 unknown.
  int exit_code() const;
};

/// Checks the request (the tier's children fit the deadline) before anything runs.
Status check_slurm_check(const SlurmCheckRequest& r);

SlurmCheckReport run_slurm_check(const SlurmCheckRequest& r);

std::string render_text(const SlurmCheckReport& r);
std::string render_json(const SlurmCheckReport& r);

}  // namespace dcukit::flows
