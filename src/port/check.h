#pragma once
// What every rule family shares: a sink that turns a token into a Finding, and the families'
// entry points (one file a family: check_wave64.cpp, check_code.cpp, check_libs.cpp).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "port/finding.h"
#include "port/project.h"
#include "port/syntax.h"

namespace dcukit::port {

/// Collects the findings of one file; one per rule, line and column.
class Sink {
public:
  Sink(const Project& project, const SourceFile& file, std::vector<Finding>& out)
      : m_project(project), m_file(file), m_out(out) {}

  /// A finding of `rule` at token index `token`; `fix` and `severity` default to the rule's. The
  /// finding, or nullptr where the rule already has one at that place.
  Finding* add(RuleId rule, std::size_t token, std::string why, std::string fix = {}, Severity severity = Severity::note,
           bool severity_given = false);
  /// As add(), with a severity other than the rule's default.
  Finding* add_with(RuleId rule, Severity severity, std::size_t token, std::string why, std::string fix = {}) {
    return add(rule, token, std::move(why), std::move(fix), severity, true);
  }

  const Project& project() const { return m_project; }
  const SourceFile& file() const { return m_file; }

private:
  const Project& m_project;
  const SourceFile& m_file;
  std::vector<Finding>& m_out;
  std::set<std::tuple<int, int, int>> m_seen;
};

/// wave64.full-mask, wave64.warp-size-literal, wave64.ballot-width, wave64.per-warp-shared.
void check_wave64(Sink& sink);
/// wave64.full-mask and wave64.ballot-width at stream position k: 32-bit masks of *_sync calls and
/// ballots kept in 32 bits (check_masks.cpp).
void check_masks_at(Sink& sink, const StreamView& v, std::size_t k);
/// Functions declared to return 32 bits whose return value is a ballot: `return __ballot_sync(m,
/// p);`, or a variable the body assigns one to (moderngpu's `y = __ballot_sync(mask, p); return y;`).
/// For ProjectFacts (check_masks.cpp).
std::map<std::string, Place, std::less<>> ballot_wrappers(const Project& p);
/// wave64.full-mask at the definitions of the project's names for a 32-bit full mask (FINAL_MASK)
/// in the sink's file, with the *_sync calls that receive them.
void check_mask_names(Sink& sink);
/// wave64.warp-size-literal at launches: one-warp blocks and widths of 32 passed to kernels
/// (check_launch.cpp).
void check_launches(Sink& sink);
/// wave64.warp-size-literal: block sizes rocPRIM refuses for CUB's warp-transpose loads and stores
/// (check_transpose.cpp).
void check_transpose_blocks(Sink& sink);
/// The block sizes of the project's CUB warp-transpose loads and stores, for ProjectFacts.
TransposeBlocks transpose_blocks(const Project& p);
/// ptx.inline-asm, arch.cuda-arch used as a value, api.* .
void check_code(Sink& sink);
/// arch.cuda-arch: the __CUDA_ARCH__ tests (check_arch.cpp).
void check_arch(Sink& sink);
/// " through NAME (defined from it at file:line)" where `name` is a macro defined from
/// __CUDA_ARCH__ (ProjectFacts::arch_macros); empty for any other name.
std::string through_arch_macro(const Project& p, const std::string& name);
/// "WHAT (lines a, b, c, ... N in all)." for a finding's message (eight lines shown); empty for none.
std::string lines_said(std::string_view what, const std::vector<int>& lines);
/// lib.* and dcu.fp8.
void check_libs(Sink& sink);
/// pp.cuda-only-macro.
void check_macros(Sink& sink);

/// Lines of inline PTX (asm statements whose strings hold PTX's own syntax, macro bodies too) in
/// the branch that conditional directive `d` of `f` opens.
std::vector<int> ptx_lines_in_branch(const SourceFile& f, std::size_t d);
/// Lines of the conditional directives nested in that branch which test __CUDA_ARCH__ (itself or
/// through a macro defined from it) or a macro only CUDA defines.
std::vector<int> cuda_tests_in_branch(const Project& p, const SourceFile& f, std::size_t d);

/// The library a code token names (cublasCreate, cub::, thrust::), if any; shared with the statistics.
std::optional<RuleId> library_use(const StreamView& v, std::size_t k, const ProjectFacts& facts);
/// The library an #include names (<cublas_v2.h>, <cub/cub.cuh>), if any.
std::optional<RuleId> library_header(std::string_view header);
/// The libraries some file of the project includes where a HIP build reads it (an angle-bracket
/// or quoted library header, never a project header named after one): their uses in the other
/// files are that include's finding. Needs normal_paths in the project's facts.
std::set<RuleId> libraries_included(const Project& project);
/// cuBLAS, cuBLASLt and cuSPARSE where some file includes ATen's CUDA context header, else none.
std::set<RuleId> libraries_through_torch(const Project& project);

/// "file.cu:12" for messages that point at another place.
std::string where(const Project& p, const Place& place);
/// "layernorm.cuh lines 23, 24, 35; attention.cuh line 91": lines by file index (eight a file shown).
std::string lines_by_file(const Project& p, const std::map<std::size_t, std::set<int>>& lines);

}  // namespace dcukit::port
