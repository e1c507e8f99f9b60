// lib.* (one finding a library and file, at its first use, with the count) and dcu.fp8.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "port/check.h"
#include "port/preprocess.h"
#include "port/syntax.h"

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

/// `prefix` followed by an upper-case letter: cublasCreate, not cublas_handle.
bool api_name(std::string_view s, std::string_view prefix) {
  return starts_with(s, prefix) && s.size() > prefix.size() &&
         std::isupper(static_cast<unsigned char>(s[prefix.size()]));
}

bool is_fp8(std::string_view s) {
  static const Names k = {"__nv_fp8_e4m3",
                          "__nv_fp8_e5m2",
                          "__nv_fp8x2_e4m3",
                          "__nv_fp8x2_e5m2",
                          "__nv_fp8x4_e4m3",
                          "__nv_fp8x4_e5m2",
                          "__nv_fp8_storage_t",
                          "__nv_fp8x2_storage_t",
                          "__nv_fp8x4_storage_t",
                          "__nv_fp8_interpretation_t",
                          "__NV_E4M3",
                          "__NV_E5M2",
                          "CUDA_R_8F_E4M3",
                          "CUDA_R_8F_E5M2",
                          "__nv_fp8_e8m0",
                          "CUBLASLT_MATMUL_DESC_A_SCALE_POINTER"};
  if (k.count(s)) return true;
  return starts_with(s, "__nv_cvt_") && s.find("fp8") != std::string_view::npos;
}

/// Whether `path` lies in the library's own source tree (flash-attention's csrc/flash_attn_ck,
/// cutlass/include/cute), where its rule would report the library to itself.
bool inside_library(const std::string& path, RuleId rule) {
  std::string p = "/" + path;
  for (char& c : p) c = c == '\\' ? '/' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto has = [&](std::initializer_list<std::string_view> parts) {
    for (std::string_view part : parts)
      if (p.find(part) != std::string::npos) return true;
    return false;
  };
  switch (rule) {
    case RuleId::lib_flash_attn:
      return has({"/flash_attn", "/flash-attention", "/flash_attention", "/flashattention"});
    case RuleId::lib_cutlass:
      return has({"/cutlass/", "/cute/"});
    case RuleId::lib_cub:
      return has({"/cub/", "/hipcub/"});
    case RuleId::lib_nccl:  // NCCL's own tree (src/ under the repository), or RCCL's
      return has({"/nccl/src/", "/rccl/src/"});
    case RuleId::lib_thrust:
      return has({"/thrust/"});
    case RuleId::lib_triton:
      return has({"/triton/"});
    default:
      return false;
  }
}

}  // namespace

std::optional<RuleId> library_use(const StreamView& v, std::size_t k, const ProjectFacts& facts) {
  const Token& t = v.at(k);
  if (t.kind != TokenKind::identifier) return std::nullopt;
  const std::string& s = t.text;
  const bool scope = v.is(k + 1, "::");
  if (scope || (k > 0 && v.is(k - 1, "namespace"))) {
    // The library's own code (flash-attention's ROCm backend opens namespace flash); a project that
    // opens cub specialises its templates and still depends on it (rocThrust keeps thrust::).
    if (facts.namespaces.count(s) && s != "cub") return std::nullopt;
    if (s == "cub") return RuleId::lib_cub;
    // rocThrust keeps thrust:: and its headers; only Thrust's CUDA system is not there
    // (thrust::cuda::par, thrust::system::cuda::, thrust::cuda_category()).
    if (s == "thrust") {
      if (!scope) return std::nullopt;
      const std::string& next = k + 2 < v.size() ? v.at(k + 2).text : std::string();
      const bool cuda_system =
          next == "cuda" || next == "cuda_cub" || next == "cuda_category" ||
          (next == "system" && v.is(k + 3, "::") && k + 4 < v.size() && v.at(k + 4).text == "cuda");
      return cuda_system ? std::optional<RuleId>(RuleId::lib_thrust) : std::nullopt;
    }
    if (s == "cutlass" || s == "cute") return RuleId::lib_cutlass;
    if (s == "flash") return RuleId::lib_flash_attn;
    if (s == "triton") return RuleId::lib_triton;
    // ::cuda::std:: and cuda::pipeline, not at::cuda:: (a namespace of another library)
    static const Names keywords = {"typename", "return", "new",   "delete", "const", "constexpr", "static",
                                   "case",     "throw",  "using", "else",   "do",    "template",  "co_return"};
    const bool nested =
        k >= 2 && v.is(k - 1, "::") && v.at(k - 2).kind == TokenKind::identifier && !keywords.count(v.at(k - 2).text);
    // Where the files include libcu++: TransformerEngine's own cuda::sm_count() is not. libcu++'s
    // own names are its wherever they are (cuCollections' static_map.inl takes cuda::thread_scope
    // and cuda::atomic from the header that includes it).
    static const Names own = {"std",
                              "atomic",
                              "atomic_ref",
                              "atomic_flag",
                              "thread_scope",
                              "barrier",
                              "pipeline",
                              "memcpy_async",
                              "aligned_size_t",
                              "annotated_ptr",
                              "make_pipeline",
                              "pipeline_shared_state",
                              "memory_order",
                              "ptx",
                              "access_property",
                              "proclaim_return_type",
                              "stream_ref",
                              "mr"};
    if (s == "cuda" && scope && !nested &&
        (facts.included_libraries.count(RuleId::lib_libcudacxx) ||
         (k + 2 < v.size() && (own.count(v.at(k + 2).text) || starts_with(v.at(k + 2).text, "thread_scope_") ||
                               starts_with(v.at(k + 2).text, "memory_order_")))))
      return RuleId::lib_libcudacxx;
  }
  // A libcu++ pipeline's or barrier's member calls, where the files include libcu++.
  static const Names pipeline = {"producer_acquire", "producer_commit", "consumer_wait",  "consumer_wait_for",
                                 "consumer_release", "arrive_and_wait", "arrive_and_drop"};
  if (k > 0 && v.is(k - 1, ".") && v.is(k + 1, "(") && pipeline.count(s) &&
      facts.included_libraries.count(RuleId::lib_libcudacxx))
    return RuleId::lib_libcudacxx;
  if (facts.own_names.count(s)) return std::nullopt;  // the project's own helper (CUBLAS_CHECK)
  if (api_name(s, "cublasLt") || starts_with(s, "CUBLASLT_")) return RuleId::lib_cublaslt;
  if (api_name(s, "cublas") || starts_with(s, "CUBLAS_")) return RuleId::lib_cublas;
  if (api_name(s, "cudnn") || starts_with(s, "CUDNN_")) return RuleId::lib_cudnn;
  if (api_name(s, "cufft") || starts_with(s, "CUFFT_")) return RuleId::lib_cufft;
  if (api_name(s, "curand") || starts_with(s, "curand_") || starts_with(s, "CURAND_")) return RuleId::lib_curand;
  if (api_name(s, "cusparse") || starts_with(s, "CUSPARSE_")) return RuleId::lib_cusparse;
  if (api_name(s, "nccl")) return RuleId::lib_nccl;
  if (api_name(s, "cupti") || starts_with(s, "CUPTI_") || starts_with(s, "CUpti_")) return RuleId::lib_cupti;
  if (api_name(s, "nvml") || starts_with(s, "NVML_")) return RuleId::lib_nvml;
  if (starts_with(s, "__pipeline_")) return RuleId::api_async_copy;
  if (s == "Flash_fwd_params" || s == "Flash_bwd_params" || starts_with(s, "run_mha_fwd") ||
      starts_with(s, "flash_attn_"))
    return RuleId::lib_flash_attn;
  return std::nullopt;
}

std::optional<RuleId> library_header(std::string_view h) {
  if (h.size() < 3) return std::nullopt;
  h = h.substr(1, h.size() - 2);
  if (starts_with(h, "nvtx3/") || starts_with(h, "nvToolsExt")) return RuleId::lib_nvtx;
  // libcu++'s headers have no suffix (<cuda/pipeline>) or sit under cuda/std/; <cuda/mpi_stub.h> is
  // a project's own (CTranslate2's include/cuda/).
  // <nv/target> (NV_IF_TARGET, _NV_FIRST_ARG) ships with libcu++ too.
  if (starts_with(h, "cuda/std/") || (starts_with(h, "cuda/") && h.find('.') == std::string_view::npos) ||
      h == "nv/target")
    return RuleId::lib_libcudacxx;
  if (starts_with(h, "cublasLt")) return RuleId::lib_cublaslt;
  if (starts_with(h, "cublas")) return RuleId::lib_cublas;
  if (starts_with(h, "cudnn")) return RuleId::lib_cudnn;
  if (starts_with(h, "cufft")) return RuleId::lib_cufft;
  if (starts_with(h, "curand")) return RuleId::lib_curand;
  if (starts_with(h, "cusparse")) return RuleId::lib_cusparse;
  if (h == "nccl.h") return RuleId::lib_nccl;
  if (starts_with(h, "cupti")) return RuleId::lib_cupti;
  if (h == "nvml.h") return RuleId::lib_nvml;
  if (h == "cuda_pipeline_primitives.h" || h == "cuda_pipeline.h" || h == "cuda_awbarrier_primitives.h")
    return RuleId::api_async_copy;
  if (starts_with(h, "cub/")) return RuleId::lib_cub;
  if (starts_with(h, "thrust/system/cuda/")) return RuleId::lib_thrust;  // rocThrust has the others
  if (starts_with(h, "cutlass/") || starts_with(h, "cute/")) return RuleId::lib_cutlass;
  if (h.find("flash_attn") != std::string_view::npos || h.find("flash_fwd") != std::string_view::npos)
    return RuleId::lib_flash_attn;
  if (starts_with(h, "triton/")) return RuleId::lib_triton;
  return std::nullopt;
}

namespace {

/// The header directive `d` includes where some build reads it ("<cub/cub.cuh>", quotes kept).
std::optional<std::string> included_header(const SourceFile& f, std::size_t d) {
  const Directive& dir = f.lexed.directives[d];
  if (dir.name != "include" || f.reach(dir.hash) == Reach::skipped) return std::nullopt;
  const auto toks = directive_tokens(f, d);
  if (toks.empty()) return std::nullopt;
  return toks[0]->text;
}

/// The library a directive includes, where a HIP build reads it: an angle-bracket or quoted
/// name of the library's headers, never a project's own header named after it (cublas_common.h).
std::optional<RuleId> included_library(const Project& p, const SourceFile& f, std::size_t d) {
  const Directive& dir = f.lexed.directives[d];
  if (dir.name != "include" || f.reach(dir.hash) != Reach::shared) return std::nullopt;
  const auto toks = directive_tokens(f, d);
  if (toks.empty() || toks[0]->text.size() < 3) return std::nullopt;
  const std::string& name = toks[0]->text;
  const auto self = static_cast<std::size_t>(&f - p.files.data());
  if (name.front() == '"' &&
      resolve_include(p.facts.normal_paths, self, name.substr(1, name.size() - 2)) != std::string::npos)
    return std::nullopt;
  if (auto lib = library_header(name)) return lib;
  // A library vendored in a folder of the project, reached by a relative path (cuSZ's
  // "../../external/cub/cub/cub.cuh", a git submodule of NVIDIA's CUB): the path's tail from the
  // library's own folder.
  if (name.front() == '"')
    for (std::size_t slash = name.find('/'); slash != std::string::npos; slash = name.find('/', slash + 1)) {
      const std::string tail = name.substr(slash + 1, name.size() - slash - 2);
      if (tail.find('/') == std::string::npos) break;
      const auto lib = library_header("<" + tail + ">");
      if (lib == RuleId::lib_cub || lib == RuleId::lib_thrust || lib == RuleId::lib_cutlass ||
          lib == RuleId::lib_libcudacxx)
        return lib;
    }
  return std::nullopt;
}

}  // namespace

std::set<RuleId> libraries_included(const Project& p) {
  std::set<RuleId> out;
  for (const SourceFile& f : p.files)
    for (std::size_t d = 0; d < f.lexed.directives.size(); ++d)
      if (auto lib = included_library(p, f, d)) out.insert(*lib);
  return out;
}

std::set<RuleId> libraries_through_torch(const Project& p) {
  for (const SourceFile& f : p.files)
    for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
      const auto h = included_header(f, d);
      if (h == "<ATen/cuda/CUDAContext.h>" || h == "<ATen/cuda/CUDAContextLight.h>")
        return {RuleId::lib_cublas, RuleId::lib_cublaslt, RuleId::lib_cusparse};
    }
  return {};
}

void check_libs(Sink& sink) {
  const SourceFile& f = sink.file();
  const Project& p = sink.project();
  struct Use {
    std::size_t first = 0;
    int count = 0;
    Names names;
    int vendor_mapped = 0;
    std::set<int> include_lines;  ///< every #include of the library in this file
    std::set<int> name_lines;     ///< the first use of each name in code
  };
  std::map<RuleId, Use> uses;
  auto hit = [&](RuleId r, std::size_t token, const std::string& name, bool mapped) {
    Use& u = uses[r];
    if (u.count++ == 0 || token < u.first) u.first = token;
    if (!u.names.insert(name).second) return;
    if (mapped) ++u.vendor_mapped;
    if (f.lexed.tokens[token].directive < 0) u.name_lines.insert(f.lexed.tokens[token].line);
  };
  std::set<int> fp8_lines;
  for (const Stream& s : f.streams) {
    const StreamView v{f, s};
    bool unexpanded = false;  // a helper macro nothing expands: its names are no dependency
    if (s.define >= 0)
      if (const auto name = directive_tokens(f, static_cast<std::size_t>(s.define)); !name.empty())
        unexpanded = p.facts.unexpanded_macros.count(name[0]->text) > 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      const Reach r = f.reach(v.index(k));
      if (r == Reach::skipped) continue;
      const Token& t = v.at(k);
      if (t.kind == TokenKind::identifier && is_fp8(t.text) && fp8_lines.insert(t.line).second)
        if (Finding* x = sink.add(RuleId::dcu_fp8, v.index(k),
                                  fmt::format("NVIDIA's FP8 types and conversions ({} here): DCU's FP8 layout "
                                              "differs, and BW1000 lists no FP8 units.",
                                              t.text)))
          x->same = "fp8";
      if (r != Reach::shared || unexpanded) continue;
      if (auto lib = library_use(v, k, p.facts)) {
        std::string name = t.text;  // cuda::memcpy_async, cuda::std::enable_if: the qualified name
        if (t.text == "cuda" || t.text == "thrust")
          for (std::size_t j = k; j + 2 < v.size() && v.is(j + 1, "::") && v.at(j + 2).kind == TokenKind::identifier;
               j += 2)
            name += "::" + v.at(j + 2).text;
        hit(*lib, v.index(k), name, p.facts.vendor_map.count(t.text) > 0);
      }
    }
  }
  std::set<RuleId> included_here;
  for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
    const Directive& dir = f.lexed.directives[d];
    const auto header = included_header(f, d);
    if (!header) continue;
    const std::string& h = *header;
    const bool fp8_header = h == "<cuda_fp8.h>" || h == "\"cuda_fp8.h\"" || h == "<cuda_fp8.hpp>" ||
                            h == "<cuda/std/__floating_point/fp8.h>";
    // An include of FP8 types the file never names is no dependency (LeetCUDA's kernels include
    // cuda_fp8.h beside cuda_bf16.h and use neither).
    if (fp8_header && !fp8_lines.empty() && fp8_lines.insert(dir.line).second)
      if (Finding* x = sink.add(RuleId::dcu_fp8, dir.hash,
                                fmt::format("{} declares NVIDIA's FP8 types, whose encoding DCU does not share.",
                                            h)))
        x->same = "fp8";
    if (auto lib = included_library(p, f, d)) {
      hit(*lib, dir.hash, h, false);
      uses[*lib].include_lines.insert(dir.line);
      included_here.insert(*lib);
    }
  }
  // A library is one finding where it is included; a file that only uses it, through a header
  // of the project that includes it, adds nothing a port has to find. Used with no include in
  // the files audited, it is reported at the first use.
  const std::set<RuleId>& included = p.facts.included_libraries;
  for (const auto& [rule, u] : uses) {
    if (inside_library(f.path, rule)) continue;
    // libcu++, the pipeline primitives and Thrust's CUDA system have no HIP counterpart of that
    // name: each use is rewritten where it is, included here or not (cuCollections' static_map.inl
    // uses cuda::atomic through the header that includes it).
    const bool rewritten_in_place =
        rule == RuleId::lib_libcudacxx || rule == RuleId::api_async_copy || rule == RuleId::lib_thrust;
    if (!included_here.count(rule) && included.count(rule) && !rewritten_in_place) continue;
    // Reached through ATen's CUDA context header (a PyTorch extension): torch's ROCm build
    // hipifies the extension and links hipBLAS/hipSPARSE for it.
    if (!included_here.count(rule) && p.facts.torch_libraries.count(rule)) continue;
    // Every name used here is mapped by the project's own HIP vendor header (exllamav2's
    // compat header: cublasHgemm -> hipblasHgemm), and the file includes no header of the
    // library: the port is done.
    if (!included_here.count(rule) && !u.names.empty() && u.vendor_mapped == static_cast<int>(u.names.size())) continue;
    std::string list;
    int shown = 0;
    for (const auto& n : u.names)
      if (shown++ < 5) list += (list.empty() ? "" : ", ") + n;
    if (u.names.size() > 5) list += ", ...";
    std::string mapped;
    if (u.vendor_mapped > 0)
      mapped =
          fmt::format(" {} of these names are mapped by a HIP vendor header in the files audited.", u.vendor_mapped);
    Finding* x = sink.add(rule, u.first,
                          fmt::format("{} {} in this file ({}). {}{}", u.count, u.count == 1 ? "reference" : "references",
                                      list, rule_info(rule).why, mapped));
    // The file's other includes of the library (nvToolsExt.h beside nvToolsExtCudaRt.h) are the
    // same thing to port: listed as its lines.
    if (x)
      for (int line : u.include_lines)
        if (line != x->line) x->also.push_back(line);
    // So the first use of each of their names is listed too (cuda::memcpy_async,
    // pipe.producer_acquire(), __pipeline_commit(), thrust::cuda::par).
    if (x && rewritten_in_place)
      for (int line : u.name_lines)
        if (line != x->line && std::find(x->also.begin(), x->also.end(), line) == x->also.end())
          x->also.push_back(line);
    if (x) std::sort(x->also.begin(), x->also.end());
  }
}

}  // namespace dcukit::port
