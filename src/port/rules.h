#pragma once
// The audit's rules: stable ids (what --ignore, the inline comment, SARIF and the docs name), a
// default severity, and the explanation `--rules` prints and SARIF carries as rule metadata.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcukit::port {

/// How bad a finding is. error: the code fails to build on HIP or computes a wrong answer on a
/// 64-lane wavefront; warning: it builds but needs a decision (performance, a feature DCU lacks);
/// note: a dependency to port, with what it maps to.
enum class Severity { error, warning, note };

/// "error", "warning", "note" (also SARIF's level names).
std::string_view to_string(Severity s);

/// Every rule. The string ids are the table in rules.cpp.
enum class RuleId {
  wave64_full_mask,
  wave64_warp_size_literal,
  wave64_ballot_width,
  wave64_per_warp_shared,
  ptx_inline_asm,
  arch_cuda_arch,
  api_cooperative_groups,
  api_texture,
  api_wmma,
  api_launch_bounds,
  api_warp_matrix,
  api_graph,
  api_graphics_interop,
  api_implicit_runtime,
  api_legacy_launch,
  api_async_copy,
  lib_cublas,
  lib_cublaslt,
  lib_cudnn,
  lib_cufft,
  lib_curand,
  lib_cusparse,
  lib_nccl,
  lib_cub,
  lib_thrust,
  lib_cutlass,
  lib_flash_attn,
  lib_triton,
  lib_nvtx,
  lib_cupti,
  lib_nvml,
  lib_libcudacxx,
  dcu_fp8,
  pp_cuda_only_macro,
};

/// What --rules prints and SARIF's tool.driver.rules carries for one rule.
struct RuleInfo {
  RuleId id;
  std::string_view name;     ///< "wave64.full-mask"
  Severity severity;         ///< the default; a finding may be milder (see each rule)
  std::string_view summary;  ///< one line
  std::string_view why;      ///< why it breaks on HIP, on a 64-lane wavefront or on DCU
  std::string_view fix;      ///< what to do instead
};

/// All rules, in a stable order.
const std::vector<RuleInfo>& all_rules();

/// The rule's entry.
const RuleInfo& rule_info(RuleId id);

/// "wave64.full-mask".
std::string_view to_string(RuleId id);

/// The rule named `name`, if there is one.
std::optional<RuleId> parse_rule(std::string_view name);

}  // namespace dcukit::port
