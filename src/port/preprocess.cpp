#include "port/preprocess.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "port/syntax.h"

namespace dcukit::port {
namespace {

/// Bodies of the platform facts that have a value (tokens must outlive every evaluation).
const std::vector<const Token*>& wavefront_body() {
  static const Token k64{TokenKind::number, "64"};
  static const std::vector<const Token*> body{&k64};
  return body;
}
const std::vector<const Token*>& one_body() {
  static const Token k1{TokenKind::number, "1"};
  static const std::vector<const Token*> body{&k1};
  return body;
}

// Never defined by a HIP build on AMD; the CUDA build's own and other platforms' switches.
constexpr const char* kNotOnHip[] = {"__CUDA_ARCH__",
                                     "__CUDA_ARCH_LIST__",
                                     "__NVCC__",
                                     "CUDART_VERSION",
                                     "CUDA_VERSION",
                                     "__CUDACC_VER_MAJOR__",
                                     "__CUDACC_VER_MINOR__",
                                     "__CUDACC_VER_BUILD__",
                                     "__DRIVER_TYPES_H__",
                                     "__CUDA_RUNTIME_H__",
                                     "__CUDA_RUNTIME_API_H__",
                                     "__cuda_cuda_h__",
                                     "__HIP_PLATFORM_NVIDIA__",
                                     "__HIP_PLATFORM_NVCC__",
                                     "GGML_USE_MUSA",
                                     "__MUSACC__",
                                     "__MUSA_ARCH__"};
// The include guards of NVIDIA's library headers, which sources test to know a library is there
// (cuda-samples' helper_cuda.h: `#ifdef CUBLAS_API_H_` around its error strings). hipBLAS,
// hipFFT and the rest define none of them.
constexpr const char* kCudaLibraryGuards[] = {"CUBLAS_API_H_", "CUBLAS_V2_H_", "CUBLASLT_H_", "_CUFFT_H_", "CUFFT_H_",
                                              "CUSPARSEAPI", "CUSPARSE_H_", "CUSOLVER_COMMON_H_", "CUSOLVERDN_H_",
                                              "CURAND_H_", "NVJPEGAPI", "NV_NPPIDEFS_H", "CUDNN_H_", "NCCL_H_",
                                              "__CUDA_FP16_H__", "__CUDA_BF16_H__", "__CUDA_FP8_H__",
                                              // what cuda_bf16.h and cuda_fp8.h define to say their types
                                              // exist (NCCL's bf16 paths; RCCL swapped in its own)
                                              "__CUDA_BF16_TYPES_EXIST__", "__CUDA_FP8_TYPES_EXIST__"};

// Defined by every HIP compilation for AMD.
constexpr const char* kHipPlatform[] = {"__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__"};

std::map<std::string, MacroInfo, std::less<>> facts(Build b, const std::vector<std::string>& switches) {
  std::map<std::string, MacroInfo, std::less<>> f;
  const MacroInfo yes{Tri::yes, false, &one_body()}, no{Tri::no, false, nullptr};
  for (const char* n : kHipPlatform) f[n] = b == Build::hip ? yes : no;
  for (const auto& n : switches) f[n] = b == Build::hip ? yes : no;
  if (b == Build::hip) {
    f["__AMDGCN_WAVEFRONT_SIZE"] = MacroInfo{Tri::yes, false, &wavefront_body()};
    for (const char* n : kNotOnHip) f[n] = no;
    for (const char* n : kCudaLibraryGuards) f[n] = no;
  } else {
    f["__AMDGCN_WAVEFRONT_SIZE"] = no;
    f["__HIP_DEVICE_COMPILE__"] = no;
    f["__CUDACC__"] = MacroInfo{Tri::yes, false, nullptr};
    f["CUDART_VERSION"] = MacroInfo{Tri::yes, false, nullptr};
    f["CUDA_VERSION"] = MacroInfo{Tri::yes, false, nullptr};
    f["__CUDA_ARCH__"] = MacroInfo{};  // defined in the device pass only: unknown
    f["__CUDA_ARCH_LIST__"] = MacroInfo{};
    for (const char* n : {"GGML_USE_MUSA", "__MUSACC__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"}) f[n] = no;
  }
  return f;
}

}  // namespace

bool is_cuda_only_macro(std::string_view n) {
  // __CUDACC__ (nvcc, clang's CUDA mode) and __CUDA__ (clang's CUDA mode): HIP-Clang defines
  // __HIP__ and __HIPCC__ instead. They stay unknown to the reach of code (hipify renames
  // __CUDACC__, so what they guard is audited); pp.cuda-only-macro reports a test of one.
  static const std::set<std::string, std::less<>> k = {"__CUDACC__",
                                                       "__CUDA__",
                                                       "CUDART_VERSION",
                                                       "CUDA_VERSION",
                                                       "__CUDACC_VER_MAJOR__",
                                                       "__CUDACC_VER_MINOR__",
                                                       "__CUDACC_VER_BUILD__",
                                                       "__NVCC__",
                                                       "__CUDACC_RTC__",
                                                       "__CUDA_ARCH_LIST__",
                                                       "__DRIVER_TYPES_H__",
                                                       "__CUDA_RUNTIME_H__",
                                                       "__CUDA_RUNTIME_API_H__",
                                                       "__cuda_cuda_h__",
                                                       "CUDNN_MAJOR",
                                                       "CUDNN_MINOR",
                                                       "CUDNN_VERSION"};
  // NVIDIA libraries' version macros, which their HIP counterparts do not define (RCCL does keep
  // NCCL's, so those are not here).
  static const std::string_view prefixes[] = {"CUDNN_FRONTEND_", "CUBLAS_VER_", "CUSPARSE_VER_",
                                              "CUFFT_VER",       "CURAND_VER",  "CUTLASS_"};
  for (std::string_view p : prefixes)
    if (starts_with(n, p)) return true;
  return k.count(n) > 0 || is_cuda_library_guard(n);
}

bool is_cuda_library_guard(std::string_view name) {
  return std::find(std::begin(kCudaLibraryGuards), std::end(kCudaLibraryGuards), name) != std::end(kCudaLibraryGuards);
}

namespace {

/// `#ifndef X` followed by `#define X` as a file's first directives: an include guard, whose
/// condition is true the first time the file is read (the only time that matters here).
bool is_include_guard(const SourceFile& f, std::size_t d) {
  const auto& ds = f.lexed.directives;
  if (d != 0 || ds.size() < 2 || ds[0].name != "ifndef" || ds[1].name != "define") return false;
  const auto a = directive_tokens(f, 0), b = directive_tokens(f, 1);
  return !a.empty() && !b.empty() && a[0]->text == b[0]->text;
}

struct Frame {
  Tri parent, taken, current;
};

/// Fills `out` (one value a token) for one build, starting the file at `base`.
void evaluate_regions(const SourceFile& f, Tri base, const MacroModel& model, std::vector<Tri>& out) {
  const MacroLookup lookup = [&model](std::string_view n) { return model.lookup(n); };
  const auto& toks = f.lexed.tokens;
  out.assign(toks.size(), base);
  std::vector<Frame> stack;
  Tri cur = base;
  for (std::size_t i = 0; i < toks.size();) {
    const int d = toks[i].directive;
    if (d < 0) {
      out[i++] = cur;
      continue;
    }
    const Directive& dir = f.lexed.directives[d];
    Tri line_value = cur;
    if (dir.name == "if" || dir.name == "ifdef" || dir.name == "ifndef") {
      const Tri c = is_include_guard(f, d) ? Tri::yes : directive_truth(f, d, lookup);
      stack.push_back({cur, c, tri_and(cur, c)});
      cur = stack.back().current;
    } else if ((dir.name == "elif" || dir.name == "elifdef" || dir.name == "elifndef") && !stack.empty()) {
      Frame& fr = stack.back();
      line_value = fr.parent;
      const Tri c = directive_truth(f, d, lookup);
      fr.current = tri_and(fr.parent, tri_and(tri_not(fr.taken), c));
      fr.taken = tri_or(fr.taken, c);
      cur = fr.current;
    } else if (dir.name == "else" && !stack.empty()) {
      Frame& fr = stack.back();
      line_value = fr.parent;
      fr.current = tri_and(fr.parent, tri_not(fr.taken));
      fr.taken = Tri::yes;
      cur = fr.current;
    } else if (dir.name == "endif" && !stack.empty()) {
      line_value = stack.back().parent;
      cur = line_value;
      stack.pop_back();
    }
    for (; i < dir.end; ++i) out[i] = line_value;
    if (i <= dir.hash) i = dir.hash + 1;  // an empty directive
  }
}

/// The files that `#include` directive d of file fi names, among the files given.
std::vector<std::size_t> resolve_include(const std::vector<SourceFile>& files, std::size_t fi, std::size_t d) {
  namespace fs = std::filesystem;
  const auto toks = directive_tokens(files[fi], d);
  if (toks.empty() || toks[0]->text.size() < 3) return {};
  const std::string rel = toks[0]->text.substr(1, toks[0]->text.size() - 2);
  const fs::path local = (fs::path(files[fi].path).parent_path() / rel).lexically_normal();
  std::vector<std::size_t> exact, suffix;
  for (std::size_t j = 0; j < files.size(); ++j) {
    const fs::path p = fs::path(files[j].path).lexically_normal();
    if (p == local) exact.push_back(j);
    const std::string ps = p.generic_string();
    if (ps == rel || (ps.size() > rel.size() && ps.compare(ps.size() - rel.size(), rel.size(), rel) == 0 &&
                      ps[ps.size() - rel.size() - 1] == '/'))
      suffix.push_back(j);
  }
  return exact.empty() ? suffix : exact;
}

void collect_definitions(const std::vector<SourceFile>& files, Preprocessed& pp, std::set<std::string>& undefs) {
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    const auto& f = files[fi];
    std::vector<std::vector<std::size_t>> chains;  // the open #if chains' conditions, innermost last
    for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
      const Directive& dir = f.lexed.directives[d];
      if (dir.name == "if" || dir.name == "ifdef" || dir.name == "ifndef") chains.push_back({d});
      if (dir.name == "elif" && !chains.empty()) chains.back().push_back(d);
      if (dir.name == "endif" && !chains.empty()) chains.pop_back();
      if (dir.name == "undef") {
        const auto t = directive_tokens(f, d);
        if (!t.empty()) undefs.insert(t[0]->text);
      }
      if (dir.name != "define") continue;
      const auto t = directive_tokens(f, d);
      if (t.empty() || t[0]->kind != TokenKind::identifier) continue;
      MacroDefinition m;
      m.file = fi;
      m.directive = d;
      if (!chains.empty()) m.chain = chains.back();
      std::size_t k = 1;
      if (t.size() > 1 && t[1]->text == "(" && t[1]->begin == t[0]->end) {
        m.function_like = true;
        for (k = 2; k < t.size() && t[k]->text != ")"; ++k)
          if (t[k]->kind == TokenKind::identifier || t[k]->text == "...") m.params.push_back(t[k]->text);
        ++k;
      }
      for (; k < t.size(); ++k) m.body.push_back(t[k]);
      pp.definitions.emplace(t[0]->text, std::move(m));
    }
  }
}

bool same_body(const std::vector<const Token*>& a, const std::vector<const Token*>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i]->text != b[i]->text) return false;
  return true;
}

/// One build's fixed point: macro states and file bases, then the final token values.
void solve(std::vector<SourceFile>& files, Build build, const std::vector<std::string>& switches,
           const std::set<std::string>& undefs, Preprocessed& pp) {
  MacroModel& model = build == Build::hip ? pp.hip : pp.cuda;
  model.facts = facts(build, switches);
  for (const auto& [name, def] : pp.definitions) {
    model.state[name] = Tri::unknown;
    if (def.function_like) model.function_like.insert(name);
  }
  // Include sites: (including file, directive, included file).
  struct Site {
    std::size_t from, directive, to;
  };
  std::vector<Site> sites;
  for (std::size_t fi = 0; fi < files.size(); ++fi)
    for (std::size_t d = 0; d < files[fi].lexed.directives.size(); ++d)
      if (files[fi].lexed.directives[d].name == "include")
        for (std::size_t to : resolve_include(files, fi, d))
          if (to != fi) sites.push_back({fi, d, to});

  std::vector<Tri> base(files.size(), Tri::yes);
  std::vector<std::vector<Tri>> values(files.size());
  for (int iter = 0; iter < 12; ++iter) {
    for (std::size_t fi = 0; fi < files.size(); ++fi) evaluate_regions(files[fi], base[fi], model, values[fi]);
    auto at = [&](std::size_t fi, std::size_t d) { return values[fi][files[fi].lexed.directives[d].hash]; };
    std::map<std::string, Tri, std::less<>> state;
    std::map<std::string, std::vector<const Token*>, std::less<>> body;
    for (auto it = pp.definitions.begin(); it != pp.definitions.end();) {
      const auto range = pp.definitions.equal_range(it->first);
      Tri s = Tri::no;
      const std::vector<const Token*>* b = nullptr;
      bool one_body = true;
      for (auto d = range.first; d != range.second; ++d) {
        const Tri v = at(d->second.file, d->second.directive);
        if (v == Tri::no) continue;
        s = tri_or(s, v);
        if (!b)
          b = &d->second.body;
        else if (!same_body(*b, d->second.body))
          one_body = false;
      }
      if (s == Tri::no && undefs.count(it->first) == 0) s = Tri::no;
      if (undefs.count(it->first) && s == Tri::yes) s = Tri::unknown;
      state[it->first] = s;
      if (s == Tri::yes && b && one_body) body[it->first] = *b;
      it = range.second;
    }
    std::vector<Tri> new_base(files.size(), Tri::no);
    std::vector<bool> included(files.size(), false);
    for (const Site& s : sites) {
      included[s.to] = true;
      new_base[s.to] = tri_or(new_base[s.to], at(s.from, s.directive));
    }
    for (std::size_t fi = 0; fi < files.size(); ++fi)
      if (!included[fi]) new_base[fi] = Tri::yes;
    const bool stable = state == model.state && new_base == base && body.size() == model.body.size();
    model.state = std::move(state);
    model.body = std::move(body);
    base = std::move(new_base);
    if (stable) break;
  }
  for (std::size_t fi = 0; fi < files.size(); ++fi) {
    evaluate_regions(files[fi], base[fi], model, values[fi]);
    (build == Build::hip ? files[fi].hip : files[fi].cuda) = std::move(values[fi]);
  }
}

}  // namespace

const std::vector<std::string>& default_hip_switches() {
  static const std::vector<std::string> k = {"GGML_USE_HIP", "USE_ROCM", "USE_HIP", "DCUKIT_HIP"};
  return k;
}

MacroInfo MacroModel::lookup(std::string_view name) const {
  if (auto s = state.find(name); s != state.end() && s->second != Tri::no) {
    MacroInfo m{s->second, function_like.count(name) > 0, nullptr};
    if (auto b = body.find(name); b != body.end() && s->second == Tri::yes) m.body = &b->second;
    return m;
  }
  if (auto f = facts.find(name); f != facts.end()) return f->second;
  if (state.count(name)) return MacroInfo{Tri::no, false, nullptr};
  return MacroInfo{};
}

std::pair<std::size_t, bool> branch_end(const SourceFile& f, std::size_t d) {
  int depth = 0;
  for (std::size_t e = d + 1; e < f.lexed.directives.size(); ++e) {
    const std::string& n = f.lexed.directives[e].name;
    if (n == "if" || n == "ifdef" || n == "ifndef") ++depth;
    else if (n == "endif" && depth-- == 0) return {e, true};
    else if (depth == 0 && (n == "else" || n == "elif" || n == "elifdef" || n == "elifndef")) return {e, false};
  }
  return {f.lexed.directives.size(), false};
}

std::pair<std::size_t, std::size_t> branch_tokens(const SourceFile& f, std::size_t d) {
  const std::size_t end = branch_end(f, d).first;
  return {f.lexed.directives[d].end,
          end < f.lexed.directives.size() ? f.lexed.directives[end].hash : f.lexed.tokens.size()};
}

std::vector<const Token*> directive_tokens(const SourceFile& f, std::size_t d) {
  std::vector<const Token*> out;
  const Directive& dir = f.lexed.directives[d];
  for (std::size_t i = dir.first; i < dir.end; ++i)
    if (f.lexed.tokens[i].kind != TokenKind::comment) out.push_back(&f.lexed.tokens[i]);
  return out;
}

Tri directive_truth(const SourceFile& f, std::size_t d, const MacroLookup& lookup, bool* tainted) {
  const std::string& n = f.lexed.directives[d].name;
  const auto toks = directive_tokens(f, d);
  if (n == "ifdef" || n == "ifndef" || n == "elifdef" || n == "elifndef") {
    if (tainted) *tainted = false;
    if (toks.empty()) return Tri::unknown;
    const MacroInfo m = lookup(toks[0]->text);
    if (tainted) *tainted = m.defined == Tri::unknown && m.tainted;
    return n == "ifdef" || n == "elifdef" ? m.defined : tri_not(m.defined);
  }
  return condition_truth(toks, lookup, tainted);
}

Preprocessed preprocess(std::vector<SourceFile>& files, const std::vector<std::string>& hip_switches) {
  Preprocessed pp;
  std::set<std::string> undefs;
  collect_definitions(files, pp, undefs);
  solve(files, Build::hip, hip_switches, undefs, pp);
  solve(files, Build::cuda, hip_switches, undefs, pp);
  return pp;
}

}  // namespace dcukit::port
