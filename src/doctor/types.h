#pragma once
// `dcukit doctor` as data: what to examine (Request) and what was found (Report). Each Finding
// has a stable id ("driver.nodes"), a status, the evidence it saw, why it matters and the command
// that fixes it; the renderers and the exit code read only these structs.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/run_info.h"
#include "telemetry/types.h"
#include "util/names.h"
#include "util/root.h"

namespace dcukit::util {
class Progress;
}

namespace dcukit::doctor {

/// How a check came out (a finding's "status"). skip: it could not run here (the reason is its summary).
enum class Verdict { ok, warn, fail, skip };
/// The one table between Verdict and its name in reports.
inline constexpr util::Name<Verdict> kVerdictNames[] = {
    {Verdict::ok, "ok"}, {Verdict::warn, "warn"}, {Verdict::fail, "fail"}, {Verdict::skip, "skip"}};
/// "ok", "warn", "fail", "skip".
std::string_view to_string(Verdict s);
std::optional<Verdict> parse_status(std::string_view s);

/// The groups of checks, in the order they run and print.
enum class Category { host, driver, toolkit, python, devices, placement, residue, smoke };
/// The one table between Category and its name.
inline constexpr util::Name<Category> kCategoryNames[] = {
    {Category::host, "host"},       {Category::driver, "driver"},   {Category::toolkit, "toolkit"},
    {Category::python, "python"},   {Category::devices, "devices"}, {Category::placement, "placement"},
    {Category::residue, "residue"}, {Category::smoke, "smoke"},
};
/// "host", "driver", "toolkit", "python", "devices", "placement", "residue", "smoke".
std::string_view to_string(Category c);
std::optional<Category> parse_category(std::string_view s);

/// One finding.
struct Finding {
  std::string id;  ///< stable: "toolkit.mismatch", "devices.pcie_link"
  Category category = Category::host;
  std::string subject;  ///< what it is about when not the host: "0000:55:00.0", "/opt/dtk-26.04"
  Verdict status = Verdict::ok;
  std::string summary;                ///< one line: "hycu 6.3.28-V1.3.0b loaded"
  std::vector<std::string> evidence;  ///< what was read, each line naming its source
  std::string why;                    ///< why it matters (empty for ok)
  std::string fix;                    ///< the command that fixes it (empty when nothing to do)
};

/// Who runs the checks: the identity device access is judged for, and this shell's placement.
struct Identity {
  unsigned uid = 0;
  std::vector<unsigned> gids;  ///< primary and supplementary groups
  std::string user;            ///< name, for messages
};

/// The memory policy of this process (what `numactl --membind/--preferred/--interleave` set).
struct MemPolicy {
  std::string mode;        ///< "default", "bind", "preferred", "interleave", "local"
  std::vector<int> nodes;  ///< the nodes the mode names
};

/// What to examine and how.
struct Request {
  std::string root = "/";  ///< the host tree: "/" live, or a fake host or unpacked bundle
  /// The environment the checks judge (PATH, LD_LIBRARY_PATH, *_VISIBLE_DEVICES, DTK_HOME...).
  std::map<std::string, std::string> env;
  std::optional<Identity> identity;     ///< unset: this process's
  std::optional<MemPolicy> mem_policy;  ///< unset: this process's (live root only)
  std::string python;                   ///< the interpreter to probe; "" is python3 on PATH (live only)
  bool python_probe = true;
  /// The probe's recorded output (a bundle's), read instead of running the interpreter.
  std::optional<std::string> python_output;
  /// The probe's recorded failure (a bundle's), reported instead of running the interpreter.
  std::optional<std::string> python_error;
  bool smoke = true;
  /// The most one telemetry source may take to read the devices (live host only).
  std::chrono::milliseconds telemetry_timeout{3000};
  std::chrono::milliseconds python_timeout{60000};
  std::chrono::milliseconds smoke_timeout{60000};  ///< for the whole smoke test
  std::string command;                             ///< the command line, for run_info
  bool offline = false;                            ///< from a bundle: no live device, no tools
  /// Owner, group and mode of paths as recorded elsewhere (a bundle's /dev nodes, which cannot be
  /// recreated unprivileged): host path -> facts, used instead of stat().
  std::map<std::string, util::FileInfo> recorded_stats;
  /// When set, every host file the checks read is recorded here (what a bundle copies).
  std::shared_ptr<util::AccessLog> record;
  /// Also write a support bundle (.tar.gz) of this live host here ("" none).
  std::string bundle;
  std::chrono::milliseconds tool_timeout{20000};  ///< for each vendor tool a bundle runs
  /// Captured vendor tool outputs read as device sources on an offline root (a bundle's).
  std::vector<std::string> captures;
  /// Examine this bundle offline instead of a host ("" none).
  std::string from_bundle;
  /// Examine a pasted collect_env (PyTorch's or vLLM's) instead of a host ("" none).
  std::string from;
  /// Where the long steps (the Python probe, the smoke test, a bundle's tools) say how long they
  /// have run; null: nowhere.
  util::Progress* progress = nullptr;
};

/// What the Python probe said, kept so that a bundle can be read again offline.
struct PythonRecord {
  std::string interpreter;
  std::string answer;  ///< the probe's JSON line; empty when it failed or was not asked
  std::string error;   ///< why it failed; empty otherwise
};

/// What writing a support bundle gave.
struct BundleWritten {
  std::string path;
  std::size_t files = 0;           ///< members in the archive
  std::vector<std::string> tools;  ///< "hy-smi: ok", "nvidia-smi -q: not found"
  std::string error;               ///< why it could not be written; "" when it was
};

/// Counts by status.
struct Summary {
  int ok = 0, warn = 0, fail = 0, skip = 0;
};

/// Everything doctor found.
struct Report {
  core::RunInfo run_info;
  std::string root;  ///< the root examined
  std::vector<Finding> findings;
  /// Set when the smoke test did not come back within its deadline: the device call may still be
  /// stuck in the driver, so the caller should end the process rather than unwind it.
  bool device_hung = false;
  PythonRecord python;  ///< the probe's raw answer (not rendered)
  /// telemetry's reading of the devices the checks used (not rendered; a bundle keeps it).
  telemetry::Snapshot telemetry;
  std::optional<BundleWritten> bundle;  ///< set when a bundle was asked for

  Summary summary() const;
  /// True when any finding is warn or fail, or an asked-for bundle could not be written (exit code 1).
  bool has_problems() const;
};

}  // namespace dcukit::doctor
