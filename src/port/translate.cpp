#include "port/translate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "port/syntax.h"

namespace dcukit::port {
namespace {

struct Edit {
  std::size_t begin, end;
  std::string text;
};

/// A name hipify would report when it has no mapping: the runtime's and driver's (cudaX, cuX,
/// CUx), the libraries' (cublasX, CUBLAS_X, ...), CUDA_ and CU_ constants, and __nv_ intrinsics.
bool looks_like_cuda_name(std::string_view s) {
  if (is_cuda_api_name(s) || starts_with(s, "__nv_")) return true;
  for (std::string_view p : {"cublas", "curand", "cufft", "cusparse", "cudnn", "cusolver", "nccl"})
    if (starts_with(s, p)) return s.size() > p.size() && std::isupper(static_cast<unsigned char>(s[p.size()]));
  // Not CUDA_: the toolkit's CUDA_ names are in the table, and the rest are projects' own macros.
  for (std::string_view p : {"CU_", "CUBLAS", "CURAND_", "CUFFT_", "CUSPARSE_", "CUDNN_"})
    if (starts_with(s, p)) return true;
  return false;
}

class Translator {
public:
  Translator(const Project& p, std::size_t index, const HipMap& map) : m_p(p), m_f(p.files[index]), m_map(map) {}

  void run() {
    for (const Stream& s : m_f.streams) {
      const StreamView v{m_f, s};
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (v.at(k).kind != TokenKind::identifier) continue;
        if (m_f.reach(v.index(k)) == Reach::hip_only) {  // a HIP branch is HIP code already
          hip_branch_refs += m_map.count(v.at(k).text) > 0;
          continue;
        }
        identifier(v, k);
      }
    }
    for (std::size_t d = 0; d < m_f.lexed.directives.size(); ++d) {
      const Directive& dir = m_f.lexed.directives[d];
      if (m_f.reach(dir.hash) == Reach::hip_only) continue;
      directive(d);
    }
  }

  std::vector<Edit> edits;
  std::map<std::string, Conversion> converted;
  std::map<std::string, Untranslated> untranslated;
  std::set<int> mask_lines;  ///< lines where a full mask was dropped
  int masks_dropped = 0;
  int hip_branch_refs = 0;

private:
  void convert(const std::string& cuda, const std::string& hip, const Token& t, std::string text) {
    edits.push_back({t.begin, t.end, std::move(text)});
    Conversion& c = converted[cuda];
    c.cuda = cuda;
    c.hip = hip;
    ++c.count;
  }
  void leave(const std::string& name, int line, std::string reason) {
    Untranslated& u = untranslated[name];
    if (u.count++ == 0) {
      u.name = name;
      u.first_line = line;
      u.reason = std::move(reason);
    }
  }

  void identifier(const StreamView& v, std::size_t k) {
    const Token& t = v.at(k);
    auto it = m_map.find(t.text);
    if (it == m_map.end() || it->second.kind == "header") {
      if (looks_like_cuda_name(t.text) && !m_p.facts.defined_names.count(t.text))
        leave(t.text, t.line, "not in dcukit's mapping table (data/hip_map.tsv)");
      return;
    }
    const HipName& h = it->second;
    if (h.kind == "namespace" && !v.is(k + 1, "::") && !(k > 0 && v.is(k - 1, "namespace"))) return;
    if (declared_here(v, k)) return;  // `typedef hip_bfloat16 nv_bfloat16;`: a shim's own name
    if (h.hip.empty()) {
      leave(t.text, t.line, h.note);
      return;
    }
    if (h.kind == "sync") {
      sync_call(v, k, h);
      return;
    }
    if (h.hip != t.text) convert(t.text, h.hip, t, h.hip);
  }

  /// Whether the identifier at k is the name a typedef or alias declaration declares
  /// (`typedef hipStream_t cudaStream_t;`, `using cudaStream_t = hipStream_t;`): renaming it
  /// would declare the HIP name as itself.
  static bool declared_here(const StreamView& v, std::size_t k) {
    if (k > 0 && v.is(k - 1, "using") && v.is(k + 1, "=")) return true;
    if (!v.is(k + 1, ";")) return false;
    for (std::size_t j = k; j-- > 0;) {
      if (v.is(j, ";") || v.is(j, "{") || v.is(j, "}")) return false;
      if (v.is(j, "typedef")) return true;
    }
    return false;
  }

  /// __shfl_xor_sync(FULL, v, o[, w]) -> __shfl_xor(v, o[, w]); other masks stay for a person.
  void sync_call(const StreamView& v, std::size_t k, const HipName& h) {
    const Token& t = v.at(k);
    const auto args = v.is(k + 1, "(") ? call_args(v, k + 1) : std::vector<Span>{};
    if (args.size() < 2 || !(is_full_mask_32(v, args[0], m_p.facts) || is_full_mask_64(v, args[0]))) {
      leave(t.text, t.line,
            "its lane mask is not the full mask: HIP 6.2+ takes a 64-bit mask, older HIP has only " + h.hip + "()");
      return;
    }
    convert(t.text, h.hip, t, h.hip);
    // Remove the mask and its comma, up to the next argument's first token.
    edits.push_back({v.at(args[0].begin).begin, v.at(args[1].begin).begin, ""});
    mask_lines.insert(t.line);
    ++masks_dropped;
  }

  void directive(std::size_t d) {
    const Directive& dir = m_f.lexed.directives[d];
    if (dir.name == "if" || dir.name == "ifdef" || dir.name == "ifndef" || dir.name == "elif" || dir.name == "undef") {
      // Conditions name macros: __CUDACC__ becomes __HIPCC__ (#define bodies are streams, done above).
      for (std::size_t i = dir.first; i < dir.end; ++i) {
        const Token& t = m_f.tok(i);
        auto it = t.kind == TokenKind::identifier ? m_map.find(t.text) : m_map.end();
        if (it != m_map.end() && !it->second.hip.empty() && it->second.kind != "header" &&
            it->second.kind != "sync" && it->second.kind != "namespace" && it->second.hip != t.text)
          convert(t.text, it->second.hip, t, it->second.hip);
      }
      return;
    }
    if (dir.name != "include") return;
    for (std::size_t i = dir.first; i < dir.end; ++i) {
      const Token& t = m_f.tok(i);
      if (t.kind != TokenKind::header_name) continue;
      const std::string inner = t.text.substr(1, t.text.size() - 2);
      auto it = m_map.find(inner);
      if (it == m_map.end() || it->second.kind != "header") return;
      if (it->second.hip.empty())
        leave(inner, t.line, it->second.note);
      else
        convert(inner, it->second.hip, t, t.text.front() + it->second.hip + t.text.back());
      return;
    }
  }

  const Project& m_p;
  const SourceFile& m_f;
  const HipMap& m_map;
};

/// End of line `line` (before its line break), or npos when the line ends inside a comment or
/// literal that spans lines, where no comment can be added.
std::size_t annotation_point(const SourceFile& f, int line) {
  const auto& starts = f.lexed.line_starts;
  std::size_t e = line < f.lexed.line_count ? starts[line] : f.text.size();
  while (e > starts[line - 1] && (f.text[e - 1] == '\n' || f.text[e - 1] == '\r')) --e;
  for (const Token& t : f.lexed.tokens)
    if (t.begin < e && t.end > e && (t.kind == TokenKind::comment || t.kind == TokenKind::string))
      return std::string::npos;
  return e;
}

/// Where to put the include: before the file's first #include, else after its #pragma once or
/// include guard's #define, else before its first code line.
std::size_t include_point(const SourceFile& f) {
  const auto line_start = [&](int line) { return f.lexed.line_starts[static_cast<std::size_t>(line - 1)]; };
  for (const Directive& d : f.lexed.directives)
    if (d.name == "include") return line_start(d.line);
  const auto& ds = f.lexed.directives;
  const auto after = [&](const Directive& d) {
    return d.last_line < f.lexed.line_count ? line_start(d.last_line + 1) : f.text.size();
  };
  if (!ds.empty() && ds[0].name == "pragma" && ds[0].first < ds[0].end && f.tok(ds[0].first).text == "once")
    return after(ds[0]);
  if (ds.size() >= 2 && ds[0].name == "ifndef" && ds[1].name == "define") return after(ds[1]);  // an include guard
  for (const Token& t : f.lexed.tokens)
    if (t.kind != TokenKind::comment) return line_start(t.line);
  return f.text.size();
}

/// A file that is HIP already: it includes a HIP header (<hip/...>, hipblas, rocblas, ...) that
/// every build reads, and no header the table maps from CUDA that a HIP build reads.
bool is_hip_source(const SourceFile& f, const HipMap& map) {
  bool hip = false;
  for (const Directive& d : f.lexed.directives) {
    std::string inner;
    if (!included_header(f, d, inner)) continue;
    const Reach r = f.reach(d.hash);
    auto it = map.find(inner);
    if (it != map.end() && it->second.kind == "header" && r != Reach::skipped) return false;
    for (std::string_view prefix : {"hip/", "hipblas", "rocblas", "rccl", "hiprand", "hipcub"})
      hip = hip || (starts_with(inner, prefix) && r == Reach::shared);
  }
  return hip;
}

}  // namespace

int TranslatedFile::converted_refs() const {
  int n = 0;
  for (const auto& c : converted) n += c.count;
  return n;
}

std::string translate_source(const Project& project, std::size_t index, const HipMap& map,
                             const std::vector<Finding>& findings, bool annotate, TranslatedFile& stats) {
  const SourceFile& f = project.files[index];
  stats.lines = f.lexed.line_count;
  if (is_hip_source(f, map)) {
    stats.already_hip = true;
    return f.text;
  }
  Translator tr(project, index, map);
  tr.run();
  stats.hip_branch_refs = tr.hip_branch_refs;
  std::vector<Edit> edits = std::move(tr.edits);
  if (annotate) {
    std::map<int, std::set<std::string>> rules;
    for (const Finding& x : findings) {
      if (x.rule == RuleId::api_implicit_runtime) continue;  // fixed below: the include is added
      rules[x.line].insert(std::string(to_string(x.rule)));
      for (int line : x.also) rules[line].insert(std::string(to_string(x.rule)));
    }
    for (const auto& [line, ids] : rules) {
      const std::size_t at = annotation_point(f, line);
      if (at == std::string::npos) continue;
      std::string list;
      for (const auto& id : ids) {
        list += (list.empty() ? "" : ", ") + id;
        if (id == to_string(RuleId::wave64_full_mask) && tr.mask_lines.count(line)) list += " (mask dropped)";
      }
      const bool continued = at > 0 && f.text[at - 1] == '\\';
      if (continued)
        edits.push_back({at - 1, at - 1, fmt::format("/* dcukit-port audit: {} */ ", list)});
      else
        edits.push_back({at, at, fmt::format(" // dcukit-port audit: {}", list)});
      ++stats.annotated_lines;
    }
  }
  if (relies_on_implicit_runtime(project, index)) {
    const std::size_t at = include_point(f);
    edits.push_back({at, at, "#include <hip/hip_runtime.h>  // dcukit-port: nvcc includes cuda_runtime.h itself\n"});
    stats.runtime_include_added = true;
  }
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  std::size_t pos = 0;
  for (const Edit& e : edits) {
    if (e.begin < pos) continue;  // overlapping: keep the first
    out.append(f.text, pos, e.begin - pos);
    out += e.text;
    pos = e.end;
  }
  out.append(f.text, pos, std::string::npos);
  stats.lines = f.lexed.line_count;
  stats.masks_dropped = tr.masks_dropped;
  for (auto& [name, c] : tr.converted) stats.converted.push_back(c);
  for (auto& [name, u] : tr.untranslated) stats.untranslated.push_back(u);
  return out;
}

}  // namespace dcukit::port
