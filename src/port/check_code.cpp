// ptx.inline-asm, arch.cuda-arch used as a value, and the api.* rules (check_arch.cpp has the
// __CUDA_ARCH__ tests). None of them applies to HIP-only code (an
// AMD asm block in a __HIP_PLATFORM_AMD__ branch is what a port should contain).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "port/check.h"
#include "port/pp_expr.h"
#include "port/project.h"
#include "port/preprocess.h"
#include "port/syntax.h"

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

/// Counts the uses of one API family in a file and reports the first, with the count.
struct Aggregate {
  RuleId rule;
  std::size_t first = 0;
  int count = 0;
  Names names;

  void hit(std::size_t token, const std::string& name) {
    if (count++ == 0 || token < first) first = token;
    names.insert(name);
  }
  void report(Sink& sink) const {
    if (count == 0) return;
    std::string list;
    int shown = 0;
    for (const auto& n : names)
      if (shown++ < 6) list += (list.empty() ? "" : ", ") + n;
    if (names.size() > 6) list += ", ...";
    sink.add(rule, first, fmt::format("{} {} in this file ({}).", count, count == 1 ? "use" : "uses", list));
  }
};

/// The words of an asm body: runs of letters, digits, '_', '.', '%' and '$'.
std::vector<std::string_view> asm_words(std::string_view body) {
  std::vector<std::string_view> out;
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '%' || c == '$';
  };
  for (std::size_t i = 0; i < body.size();) {
    while (i < body.size() && !word_char(body[i])) ++i;
    std::size_t j = i;
    while (j < body.size() && word_char(body[j])) ++j;
    if (j > i) out.push_back(body.substr(i, j - i));
    i = j;
  }
  return out;
}

/// PTX's own syntax: a dotted instruction PTX has (ld.global.f32, mov.u32, shfl.sync.bfly.b32),
/// a special register (%laneid, %tid.x), a .reg declaration, or trap/brkpt. x86's movl/cpuid and
/// PowerPC's mftb/lwsync are none of these.
bool is_ptx_word(std::string_view w) {
  static const Names specials = {"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid", "%clock",
                                 "%clock64", "%globaltimer", "%lanemask_lt", "%lanemask_le", "%lanemask_eq",
                                 "%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size", "%tid", "%ntid", "%ctaid",
                                 "%nctaid", "%pm0", "%envreg0"};
  // clang-format off
  static const Names dotted = {
      "ld",       "st",      "mov",      "cvt",       "cvta",     "add",     "sub",     "mul",      "mad",
      "fma",      "div",     "rem",      "abs",       "neg",      "min",     "max",     "and",      "or",
      "xor",      "not",     "shl",      "shr",       "shf",      "prmt",    "lop3",    "bfe",      "bfi",
      "brev",     "popc",    "clz",      "setp",      "selp",     "set",     "slct",    "atom",     "red",
      "membar",   "fence",   "bar",      "barrier",   "shfl",     "vote",    "match",   "redux",    "activemask",
      "cp",       "mma",     "wmma",     "wgmma",     "ldmatrix", "stmatrix", "movmatrix", "ldu",  "prefetch",
      "prefetchu", "isspacep", "rcp",    "sqrt",      "rsqrt",    "ex2",     "lg2",     "sin",      "cos",
      "tanh",     "testp",   "copysign", "dp4a",      "dp2a",     "vabsdiff", "nanosleep", "griddepcontrol", "elect",
      "mbarrier", "cp.async", "tcgen05", "setmaxnreg", "stas",    "multimem", "tensormap", "getctarank",
      "applypriority", "discard", "createpolicy", "bra", "call",  "ret",     "exit",    "pmevent",  "suld",
      "sust",     "tex",     "tld4",     "txq",       "sured",    "suq",     "istypep", "alloca",   "stackrestore",
      "stacksave", "szext",  "bmsk",     "fns",       "cnot",     "sad",     "mul24",   "mad24",    "addc",
      "subc",     "madc",    "fmax",     "fmin",     "bfind",   "mapa",    "vadd",     "vadd2",
      "vadd4",    "vsub",    "vsub2",    "vsub4",     "vmad",     "vavrg2",  "vavrg4",  "vabsdiff2", "vabsdiff4",
      "vmin",     "vmin2",   "vmin4",    "vmax",      "vmax2",    "vmax4",   "vset",    "vset2",    "vset4",
      "vshl",     "vshr"};
  // clang-format on
  if (w == "trap" || w == "brkpt" || w == ".reg" || w == ".pred" || w == ".shared" || w == ".global") return true;
  if (starts_with(w, "%%")) w.remove_prefix(1);  // %%laneid: the escaped form inside an asm string
  if (w.size() > 1 && w[0] == '%') {
    const std::string_view reg = w.substr(0, w.find('.'));
    if (specials.count(reg)) return true;
  }
  // A type pasted in by a macro leaves the instruction's dot last: "bfe." PTX_STRINGIFY(type) (cuda-kat).
  const auto dot = w.find('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  return dotted.count(w.substr(0, dot)) > 0;
}

/// Whether an asm statement's text (asm_body) is PTX: a word of PTX's own syntax, or PTX's `exit;`,
/// which ends the thread (x86, PowerPC and Arm have no such instruction).
bool is_ptx_asm(std::string_view body) {
  const auto words = asm_words(body);
  return body == "exit;" || std::any_of(words.begin(), words.end(), [](std::string_view w) { return is_ptx_word(w); });
}

/// The instructions of the asm statement at stream position k (its strings, quotes dropped), or
/// nullopt where k starts no asm statement or the statement is a bare barrier
/// (asm volatile("" ::: "memory")).
std::optional<std::string> asm_body(const StreamView& v, std::size_t k) {
  const Token& t = v.at(k);
  if (t.text != "asm" && t.text != "__asm__" && t.text != "__asm") return std::nullopt;
  std::size_t open = k + 1;
  while (open < v.size() && (v.at(open).text == "volatile" || v.at(open).text == "__volatile__" ||
                             v.at(open).text == "inline" || v.at(open).text == "goto"))
    ++open;
  if (!v.is(open, "(")) return std::nullopt;
  const std::size_t close = match_close(v, open);
  std::string body;
  for (std::size_t j = open + 1; j < close && j < v.size() && !v.is(j, ":") && !v.is(j, "::"); ++j)
    if (v.at(j).kind == TokenKind::string) body += v.at(j).text;
  body.erase(std::remove(body.begin(), body.end(), '"'), body.end());
  // The strings' escapes as the assembler reads them: "{\n.reg .f32 ph;\nmma.sync..." is two
  // instructions after a brace (flashinfer's mma.cuh), not a word "n.reg".
  std::string text;
  for (std::size_t i = 0; i < body.size(); ++i)
    if (body[i] == '\\' && i + 1 < body.size()) {
      const char e = body[++i];
      text += e == 'n' || e == 't' || e == 'r' ? ' ' : e;
    } else {
      text += body[i];
    }
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return std::nullopt;
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

void inline_asm(Sink& sink, const StreamView& v, std::size_t k) {
  const auto asm_text = asm_body(v, k);
  if (!asm_text) return;
  const std::string& body = *asm_text;
  if (!is_ptx_asm(body)) return;  // AMDGCN, or host assembly (x86, PowerPC, Arm): not PTX
  std::string matrix;
  for (std::string_view w : asm_words(body)) {
    const std::string_view op = w.substr(0, w.find('.'));
    if (matrix.empty() && is_ptx_word(w) &&
        (op == "mma" || op == "wgmma" || op == "ldmatrix" || op == "stmatrix" || op == "movmatrix"))
      matrix = std::string(op);
  }
  std::string first_line = body.substr(0, body.find("\\n"));
  if (first_line.size() > 60) first_line = first_line.substr(0, 57) + "...";
  sink.add(RuleId::ptx_inline_asm, v.index(k),
           fmt::format("Inline PTX `{}`: hipcc compiles for AMD's ISA and rejects it.", first_line));
  if (!matrix.empty())
    sink.add(RuleId::api_warp_matrix, v.index(k),
             fmt::format("The asm uses the tensor-core instruction {}: NVIDIA's per-lane fragment layout for a 32-lane "
                         "warp.",
                         matrix));
}

/// A CUDA graph API name: cudaGraph_t, cudaGraphLaunch, cudaGraphAddKernelNode, cuGraphInstantiate;
/// not OpenGL interop (cudaGraphicsMapResources) nor a project's cudaGraphLaunches counter.
bool is_graph_api(std::string_view n) {
  std::string_view tail;
  if (starts_with(n, "cudaGraph"))
    tail = n.substr(9);
  else if (starts_with(n, "cuGraph"))
    tail = n.substr(7);
  else
    return false;
  if (starts_with(tail, "ics")) return false;  // cudaGraphicsResource: OpenGL/Direct3D interop
  static const Names exact = {"_t", "Exec_t", "Node_t", "Create", "Destroy", "Launch", "Upload", "Clone",
                              "GetNodes", "GetRootNodes", "GetEdges", "GetEdges_v2", "AddDependencies",
                              "AddDependencies_v2", "RemoveDependencies", "RemoveDependencies_v2", "DestroyNode",
                              "DebugDotPrint", "RetainUserObject", "ReleaseUserObject", "NodeFindInClone",
                              "ConditionalHandleCreate", "InstantiateFlags", "DependencyType", "EdgeData",
                              "InstantiateParams", "InstantiateResult", "NodeParams", "ExecUpdateResultInfo",
                              "DebugDotFlags", "KernelNodePortDefault"};
  if (exact.count(tail)) return true;
  for (std::string_view p : {"Instantiate", "Exec", "Node", "Add", "KernelNode", "MemcpyNode", "MemsetNode",
                             "HostNode", "ChildGraphNode", "EventRecordNode", "EventWaitNode", "ExternalSemaphores",
                             "MemAllocNode", "MemFreeNode", "Mem", "DebugDot", "Conditional", "Dependency"})
    if (starts_with(tail, p)) {
      const std::string_view rest = tail.substr(p.size());
      if (rest.empty() || rest[0] == '_' || std::isupper(static_cast<unsigned char>(rest[0]))) return true;
    }
  return false;
}

/// api.implicit-runtime, on a .cu (a translation unit's root), at its first line.
void implicit_runtime(Sink& sink) {
  const SourceFile& f = sink.file();
  const Project& p = sink.project();
  if (f.lexed.tokens.empty() || f.path.size() < 3 || f.path.compare(f.path.size() - 3, 3, ".cu") != 0) return;
  const auto index = static_cast<std::size_t>(&f - p.files.data());
  bool unsure = false;
  if (index >= p.files.size() || !relies_on_implicit_runtime(p, index, &unsure) || unsure) return;
  if (Finding* x = sink.add(RuleId::api_implicit_runtime, 0,
                            "This .cu uses the CUDA runtime (kernels, built-in indices, launches or runtime names) "
                            "without including cuda_runtime.h, itself or through its headers: nvcc includes it "
                            "implicitly, hipcc does not include hip/hip_runtime.h.")) {
    x->line = 1;
    x->column = 1;
    x->code = trimmed_line(f, 1);
  }
}

/// cudaGraphicsGLRegisterBuffer, cudaGLSetGLDevice, cudaD3D11GetDevice, cudaEGLStreamConsumerConnect, ...
bool is_legacy_launch(std::string_view name) {
  static const std::set<std::string_view> k = {"cuParamSetSize",   "cuParamSeti",         "cuParamSetf",
                                               "cuParamSetv",      "cuParamSetTexRef",    "cuFuncSetBlockShape",
                                               "cuFuncSetSharedSize", "cuLaunch",         "cuLaunchGrid",
                                               "cuLaunchGridAsync"};
  return k.count(name) > 0;
}

bool is_graphics_interop(std::string_view name) {
  for (std::string_view prefix : {"cudaGraphics", "cudaGL", "cudaD3D", "cudaEGL", "cudaVDPAU", "cuGraphics"})
    if (name.substr(0, prefix.size()) == prefix && name.size() > prefix.size()) return true;
  return false;
}

/// The names cooperative_groups goes by in this file: itself, and `namespace cg = cooperative_groups;`.
Names cooperative_group_namespaces(const SourceFile& f) {
  Names out = {"cooperative_groups"};
  for (const Stream& s : f.streams) {
    const StreamView v{f, s};
    for (std::size_t k = 0; k + 4 < v.size(); ++k)
      if (v.is(k, "namespace") && v.is(k + 2, "=") && v.is(k + 3, "cooperative_groups") && v.is(k + 4, ";"))
        out.insert(v.at(k + 1).text);
  }
  return out;
}

/// One api.cooperative-groups finding a file: each later place becomes one of its lines.
void report_missing_group(Sink& sink, std::size_t token, const std::string& what) {
  if (Finding* f = sink.add_with(
          RuleId::api_cooperative_groups, Severity::error, token,
          fmt::format("{}. HIP's cooperative groups (hip/hip_cooperative_groups.h) have tiles, coalesced groups and "
                      "grid sync, but not CUDA 11's reductions and scans, labeled partitions, block_tile_memory, "
                      "memcpy_async or tiles past one wavefront.",
                      what),
          "Write the reduction with the tile's shfl_down (or a block reduction in shared memory), partition with "
          "ballots, and keep tiles within 64 lanes."))
    f->same = "missing cooperative groups";
}

/// A cooperative-groups feature HIP lacks, used at token k: cg::reduce, cg::labeled_partition,
/// cg::block_tile_memory, this_thread_block(scratch), tiled_partition<N> with N past 64, ...
void missing_cooperative_group(Sink& sink, const StreamView& v, std::size_t k, const Names& namespaces) {
  static const Names missing = {"reduce",         "inclusive_scan",       "exclusive_scan", "labeled_partition",
                                "block_tile_memory", "memcpy_async",      "invoke_one",     "invoke_one_broadcast",
                                "wait_prior"};
  const Token& t = v.at(k);
  const bool qualified = k >= 2 && v.is(k - 1, "::") && namespaces.count(v.at(k - 2).text);
  if (!qualified) return;
  if (missing.count(t.text)) {
    report_missing_group(sink, v.index(k), fmt::format("{}::{} is not in HIP", v.at(k - 2).text, t.text));
  } else if (t.text == "details" && v.is(k + 1, "::") && k + 2 < v.size()) {
    // CUDA's implementation namespace (calm's grid barrier on details::get_grid_workspace()).
    report_missing_group(sink, v.index(k),
                         fmt::format("{}::details::{}, CUDA's own implementation of cooperative groups, is not in HIP",
                                     v.at(k - 2).text, v.at(k + 2).text));
  } else if (t.text == "this_thread_block" && v.is(k + 1, "(") && !v.is(k + 2, ")")) {
    report_missing_group(sink, v.index(k), "this_thread_block(scratch), the block_tile_memory overload, is not in HIP");
  } else if (t.text == "tiled_partition" && v.is(k + 1, "<") && k + 2 < v.size() && v.is(k + 3, ">")) {
    const auto n = parse_integer(v.at(k + 2).text);
    if (n && *n > 64)
      report_missing_group(sink, v.index(k),
                           fmt::format("tiled_partition<{}>: a tile past 64 lanes spans wavefronts, which HIP's "
                                       "tiles cannot",
                                       *n));
  }
}

}  // namespace

/// Lines of inline PTX in the code of the branch that conditional directive d opens: asm
/// statements whose strings hold PTX's own syntax.
std::vector<int> ptx_lines_in_branch(const SourceFile& f, std::size_t d) {
  const auto [begin, end] = branch_tokens(f, d);
  std::set<int> out;
  for (const Stream& s : f.streams) {  // macro bodies too: moderngpu's SHFL_OP_MACRO holds its PTX
    const StreamView v{f, s};
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (v.index(k) < begin || v.index(k) >= end) continue;
      if (const auto body = asm_body(v, k); body && is_ptx_asm(*body)) out.insert(v.at(k).line);
    }
  }
  return {out.begin(), out.end()};
}


void check_code(Sink& sink) {
  const SourceFile& f = sink.file();
  const Project& p = sink.project();
  Aggregate texture{RuleId::api_texture}, wmma{RuleId::api_wmma}, graph{RuleId::api_graph};
  const auto cg_namespaces = cooperative_group_namespaces(f);
  Names interop_seen;  // one finding a name, at its first use
  static const Names tex_names = {"cudaTextureObject_t",
                                  "cudaBindTexture",
                                  "cudaBindTexture2D",
                                  "cudaBindTextureToArray",
                                  "cudaUnbindTexture",
                                  "tex1Dfetch",
                                  "tex1D",
                                  "tex2D",
                                  "tex3D",
                                  "tex1DLayered",
                                  "tex2DLayered",
                                  "texCubemap",
                                  "tex2Dgather",
                                  "cudaCreateTextureObject",
                                  "cudaDestroyTextureObject",
                                  "cudaSurfaceObject_t",
                                  "cudaCreateSurfaceObject",
                                  "surf1Dread",
                                  "surf1Dwrite",
                                  "surf2Dread",
                                  "surf2Dwrite",
                                  "surf3Dread",
                                  "surf3Dwrite",
                                  "cudaTextureDesc",
                                  "cudaResourceDesc"};
  static const Names graph_names = {"cudaStreamBeginCapture",       "cudaStreamEndCapture",
                                    "cudaStreamIsCapturing",        "cudaStreamGetCaptureInfo",
                                    "cudaKernelNodeParams",         "cudaStreamCaptureModeGlobal",
                                    "cudaStreamCaptureModeRelaxed", "cudaStreamCaptureModeThreadLocal",
                                    "cudaUserObjectCreate"};
  for (const Stream& s : f.streams) {
    const StreamView v{f, s};
    for (std::size_t k = 0; k < v.size(); ++k) {
      const Reach r = f.reach(v.index(k));
      if (r != Reach::shared) continue;
      const Token& t = v.at(k);
      if (t.kind != TokenKind::identifier) continue;
      inline_asm(sink, v, k);
      // In code (a macro's body is read where code uses the macro: in an #if it is a test, above).
      if ((t.text == "__CUDA_ARCH__" || p.facts.arch_macros.count(t.text)) && !p.facts.arch_flags.count(t.text) &&
          p.facts.cuda_arch_shims.empty() && s.define < 0)
        sink.add(
            RuleId::arch_cuda_arch, v.index(k),
            fmt::format("__CUDA_ARCH__{} is used as a value; HIP never defines it, so this does not compile on HIP.",
                        through_arch_macro(p, t.text)));
      if (t.text == "__launch_bounds__" && v.is(k + 1, "(")) {
        const auto args = call_args(v, k + 1);
        // One decision a file (how its occupancy hints map to HIP): the kernels after the first
        // are its lines.
        if (args.size() >= 2)
          if (Finding* x = sink.add(RuleId::api_launch_bounds, v.index(k),
                                    fmt::format("__launch_bounds__({}, {}): the second argument is the minimum blocks "
                                                "per multiprocessor in CUDA but the minimum waves per execution unit "
                                                "in HIP.",
                                                span_text(v, args[0]), span_text(v, args[1]))))
            x->same = "launch-bounds";
      }
      if (starts_with(t.text, "__hmma_") || starts_with(t.text, "__imma_") || starts_with(t.text, "__bmma_") ||
          starts_with(t.text, "__dmma_"))
        sink.add(RuleId::api_warp_matrix, v.index(k),
                 fmt::format("{} is a tensor-core intrinsic with NVIDIA's 32-lane fragment layout.", t.text));
      missing_cooperative_group(sink, v, k, cg_namespaces);
      if (is_legacy_launch(t.text) && v.is(k + 1, "("))
        if (Finding* x = sink.add(RuleId::api_legacy_launch, v.index(k),
                                  "The driver API's legacy launch (cuParamSet*, cuFuncSetBlockShape, cuLaunchGrid): "
                                  "removed in CUDA 12, never in HIP."))
          x->same = "legacy-launch";
      if (is_graphics_interop(t.text) && interop_seen.insert(t.text).second)
        sink.add(RuleId::api_graphics_interop, v.index(k),
                 fmt::format("{} is graphics interop: HIP has OpenGL interop on ROCm only (hipGraphics*), none for "
                             "Direct3D, EGL or VDPAU, and DCU servers have no display stack.",
                             t.text));
      if (tex_names.count(t.text) || (t.text == "texture" && v.is(k + 1, "<")) ||
          (t.text == "surface" && v.is(k + 1, "<")))
        texture.hit(v.index(k), t.text);
      if ((t.text == "wmma" || t.text == "nvcuda") && v.is(k + 1, "::")) wmma.hit(v.index(k), t.text + "::");
      if ((is_graph_api(t.text) || graph_names.count(t.text)) && !p.facts.own_names.count(t.text))
        graph.hit(v.index(k), t.text);
    }
  }
  // Headers.
  for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
    const Directive& dir = f.lexed.directives[d];
    if (dir.name != "include" || f.reach(dir.hash) != Reach::shared) continue;
    const auto toks = directive_tokens(f, d);
    if (toks.empty()) continue;
    const std::string& h = toks[0]->text;
    if (h == "<cooperative_groups/reduce.h>" || h == "<cooperative_groups/scan.h>" ||
        h == "<cooperative_groups/memcpy_async.h>")
      report_missing_group(sink, dir.hash, fmt::format("#include {}: HIP has no such header", h));
    if (h.find("_interop.h") != std::string::npos && h.find("cuda_") != std::string::npos)
      sink.add(RuleId::api_graphics_interop, dir.hash,
               fmt::format("#include {}: graphics interop, which HIP has for OpenGL on ROCm only.", h));
    if (h == "<mma.h>" || h == "\"mma.h\"" || h == "<crt/mma.h>") wmma.hit(dir.hash, h);
    if (h.find("texture_fetch_functions") != std::string::npos) texture.hit(dir.hash, h);
  }
  implicit_runtime(sink);
  texture.report(sink);
  wmma.report(sink);
  // A project whose HIP vendor header maps its graph names (exllamav2's graph.cuh under USE_ROCM)
  // has chosen to run graphs on HIP: nothing is left to find.
  const bool graphs_mapped = std::any_of(p.facts.vendor_map.begin(), p.facts.vendor_map.end(), [&](const auto& e) {
    return is_graph_api(e.first) || graph_names.count(e.first) > 0;
  });
  if (!graphs_mapped) graph.report(sink);
}

}  // namespace dcukit::port
