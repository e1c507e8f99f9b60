#pragma once
// `dcukit port`'s Requests and Reports: an audit (what breaks on HIP, on 64-lane wavefronts and
// on DCU) and a translation (CUDA names renamed to HIP ones from data/hip_map.tsv). Plain
// structs; port::run fills them and render.h turns them into text, JSON or SARIF.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/run_info.h"
#include "port/finding.h"
#include "port/rules.h"

namespace dcukit::port {

/// What `dcukit port audit` was asked.
struct AuditRequest {
  std::vector<std::string> paths;         ///< files (any suffix) and folders (their CUDA/C++ sources)
  std::vector<std::string> ignore;        ///< rule ids to leave out (--ignore)
  std::vector<std::string> hip_switches;  ///< macros a HIP build defines, besides GGML_USE_HIP, USE_ROCM, ...
  std::string command;                    ///< the command line as typed, for the report's run_info
};

/// hipify-like statistics of one file: what it uses, whatever the build, and what the audit found.
struct FileSummary {
  std::string path;
  int lines = 0;
  int cuda_api_refs = 0;               ///< references to cuda*/cu* runtime and driver names
  int cuda_api_names = 0;              ///< distinct such names
  int kernels = 0;                     ///< __global__ functions
  int launches = 0;                    ///< <<<...>>> launches
  std::map<RuleId, int> library_refs;  ///< lib.* rule -> references (calls, types, headers)
  std::map<RuleId, int> findings;      ///< rule -> findings
};

/// The audit's result.
struct AuditReport {
  core::RunInfo run_info;         ///< the header every JSON report starts with
  std::vector<Finding> findings;  ///< by file, line, column
  std::vector<FileSummary> files;
  std::vector<std::string> notes;  ///< about the run (an unknown rule in an inline comment)
  int suppressed = 0;              ///< findings an inline `dcukit-port: ignore` comment removed
  std::set<RuleId> ignored;

  /// Findings of one severity.
  int count(Severity s) const;
};

/// What `dcukit port translate` was asked: exactly one of `output` (one input file) and `out_dir`.
struct TranslateRequest {
  std::vector<std::string> inputs;
  std::string output;   ///< -o: where the one input's translation goes
  std::string out_dir;  ///< --out-dir: each input under it, at its path relative to the inputs' common folder
  std::vector<std::string> ignore;        ///< rules whose findings are not annotated
  std::vector<std::string> hip_switches;  ///< as for the audit
  bool annotate = true;                   ///< mark lines the audit flags with a comment naming the rules
  std::string command;                    ///< the command line as typed, for the report's run_info
};

/// A name translated, and how often.
struct Conversion {
  std::string cuda, hip;
  int count = 0;
};

/// A CUDA name left as it was (no HIP equivalent in the table), as hipify reports them.
struct Untranslated {
  std::string name;
  int count = 0;
  int first_line = 0;
  std::string reason;  ///< the table's note, or "not in the mapping table"
};

/// One file's translation.
struct TranslatedFile {
  std::string input, output;
  int lines = 0;
  std::vector<Conversion> converted;  ///< by CUDA name
  std::vector<Untranslated> untranslated;
  int masks_dropped = 0;    ///< full-mask *_sync calls rewritten to their mask-free HIP form
  int annotated_lines = 0;  ///< lines marked with the audit's rules
  /// `#include <hip/hip_runtime.h>` was added: the file uses the runtime or kernel syntax without
  /// including it, as nvcc allows (it includes cuda_runtime.h itself; hipcc includes nothing).
  bool runtime_include_added = false;
  /// The file is HIP already (it includes HIP's headers outside any #if and no CUDA header a HIP
  /// build reads): it is copied unchanged. Code inside HIP branches is never rewritten either.
  bool already_hip = false;
  int hip_branch_refs = 0;  ///< CUDA names left as they are inside HIP-only branches

  /// Total references converted.
  int converted_refs() const;
};

/// The translation's result.
struct TranslateReport {
  core::RunInfo run_info;  ///< the header every JSON report starts with
  std::vector<TranslatedFile> files;
};

}  // namespace dcukit::port
