// pp.cuda-only-macro: a branch that only CUDA's own macros open, which a HIP build drops without
// a word (cuda-samples' `#ifdef __DRIVER_TYPES_H__` around checkCudaErrors, `#if CUDART_VERSION >=
// 10000` around graph capture).
#include <fmt/format.h>

#include "port/check.h"
#include "port/preprocess.h"
#include "port/syntax.h"

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

bool opens(const std::string& n) { return n == "if" || n == "ifdef" || n == "ifndef"; }

/// What a port can do about `name` beyond defining it.
std::string renamed(std::string_view name) {
  return name == "__CUDACC__" ? " (hipify renames it __HIPCC__; code kept for both behind a vendor header compiles "
                                "without it)"
                              : "";
}

/// What lines [first, last] hold: the macros and functions they define, the CUDA API they call.
struct Removed {
  std::vector<std::string> defines, api, includes;
  int code_lines = 0;
  bool empty() const { return code_lines == 0 && defines.empty() && includes.empty(); }
};

Removed removed(const SourceFile& f, std::size_t d, std::size_t end, int first, int last) {
  Removed r;
  for (std::size_t e = d + 1; e < end; ++e) {
    const std::string& name = f.lexed.directives[e].name;
    if (name != "define" && name != "include") continue;
    const auto toks = directive_tokens(f, e);
    if (!toks.empty()) (name == "define" ? r.defines : r.includes).push_back(toks[0]->text);
  }
  Names api;
  std::set<int> lines;
  for (const Stream& s : f.streams) {
    if (s.define >= 0) continue;
    const StreamView v{f, s};
    for (std::size_t k = 0; k < v.size(); ++k) {
      const Token& t = v.at(k);
      if (t.line < first || t.line > last) continue;
      lines.insert(t.line);
      if (v.is(k, "{") && v.scope(k) >= 0 && (k == 0 || v.scope(k - 1) != v.scope(k)))
        if (auto fn = function_name(v, k)) r.defines.push_back(*fn + "()");
      if (t.kind == TokenKind::identifier && is_cuda_api_name(t.text) && v.is(k + 1, "(") && api.size() < 4)
        if (api.insert(t.text).second) r.api.push_back(t.text);
    }
  }
  r.code_lines = static_cast<int>(lines.size());
  return r;
}

/// The first place outside [first, last] in code a HIP build compiles that names one of `names`.
std::optional<std::pair<std::string, int>> used_elsewhere(const Project& p, const SourceFile& self, int first,
                                                          int last, const std::vector<std::string>& names) {
  Names wanted;
  for (const auto& n : names) wanted.insert(n.substr(0, n.find('(')));
  for (const SourceFile& f : p.files)
    for (std::size_t i = 0; i < f.lexed.tokens.size(); ++i) {
      const Token& t = f.lexed.tokens[i];
      if (t.kind != TokenKind::identifier || !wanted.count(t.text) || f.reach(i) == Reach::skipped) continue;
      if (&f == &self && t.line >= first - 1 && t.line <= last + 1) continue;
      return std::make_pair(t.text, t.line);
    }
  return std::nullopt;
}

/// What a port must rewrite that the branch directive d opens takes with it, in this file: the
/// tests of __CUDA_ARCH__ and CUDA's macros and the PTX inside it, and the PTX of the branches that test a macro it
/// defines (SageAttention's `#ifdef LDMATRIX_M8N8X2_ENABLED` around ldmatrix, dead on HIP once
/// the branch defining it is dropped). Branches taken where the macro is undefined are HIP's own.
std::vector<int> dropped_work(const Project& p, const SourceFile& f, std::size_t d,
                              const std::vector<std::string>& defines) {
  std::set<int> out;
  for (int l : cuda_tests_in_branch(p, f, d)) out.insert(l);
  for (int l : ptx_lines_in_branch(f, d)) out.insert(l);
  const Names names(defines.begin(), defines.end());
  for (std::size_t e = 0; e < f.lexed.directives.size(); ++e) {
    const std::string& n = f.lexed.directives[e].name;
    if (n != "ifdef" && n != "if" && n != "elif") continue;
    const auto toks = directive_tokens(f, e);
    bool tests = false;  // some use not under `!` (`!X`, `!defined X`, `!defined(X)`)
    for (std::size_t i = 0; i < toks.size(); ++i) {
      if (!names.count(toks[i]->text)) continue;
      const auto back = [&](std::size_t n) {
        return i >= n ? std::string_view(toks[i - n]->text) : std::string_view();
      };
      const bool negated = back(1) == "!" || (back(1) == "defined" && back(2) == "!") ||
                           (back(1) == "(" && back(2) == "defined" && back(3) == "!");
      tests = tests || !negated;
    }
    if (tests)
      for (int l : ptx_lines_in_branch(f, e)) out.insert(l);
  }
  return {out.begin(), out.end()};
}

/// The first and last lines between directive `open` and directive `close`: a branch's lines.
std::pair<int, int> lines_between(const SourceFile& f, std::size_t open, std::size_t close) {
  return {f.lexed.directives[open].last_line + 1, f.lexed.directives[close].line - 1};
}

/// "line 42" or "lines 42-50".
std::string span(int first, int last) {
  return first == last ? fmt::format("line {}", first) : fmt::format("lines {}-{}", first, last);
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += fmt::format(" and {} more", names.size() - 5);
  return out;
}

}  // namespace

void check_macros(Sink& sink) {
  const SourceFile& f = sink.file();
  const Project& p = sink.project();
  for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
    const Directive& dir = f.lexed.directives[d];
    if (!opens(dir.name) || f.reach(dir.hash) == Reach::skipped) continue;
    const auto toks = directive_tokens(f, d);
    auto macro = std::find_if(toks.begin(), toks.end(), [](const Token* t) { return is_cuda_only_macro(t->text); });
    if (macro == toks.end()) continue;
    // Does HIP's outcome depend on the CUDA-only macro, and is it false?
    const MacroLookup traced = [&p](std::string_view n) {
      return is_cuda_only_macro(n) ? MacroInfo{Tri::unknown, false, nullptr, true} : p.pp.hip.lookup(n);
    };
    bool depends = false;
    directive_truth(f, d, traced, &depends);
    if (!depends) continue;
    // On HIP every CUDA-only macro is undefined, whether or not the files audited include the
    // library header that would define it on CUDA (cudnn_frontend.h).
    const Tri on_hip = directive_truth(f, d, [&p](std::string_view n) {
      return is_cuda_only_macro(n) ? MacroInfo{Tri::no, false, nullptr, false} : p.pp.hip.lookup(n);
    });
    const auto [end, is_endif] = branch_end(f, d);
    // True on HIP (`#if CUDART_VERSION < 2020`): the branch is HIP's as much as an old CUDA's, and
    // projects write such branches for HIP on purpose (ggml's __hgt2_mask): not reported, unless
    // it stops the build (`#if CUDA_VERSION < 8000` / `#error`).
    if (on_hip == Tri::yes) {
      for (std::size_t e = d + 1; e < end; ++e)
        if (f.lexed.directives[e].name == "error") {
          sink.add_with(RuleId::pp_cuda_only_macro, Severity::error,
                        static_cast<std::size_t>(*macro - f.lexed.tokens.data()),
                        fmt::format("`#{}` tests {}, which only CUDA defines{}: HIP reads it as 0, the condition is "
                                    "true, and a HIP build stops at the #error on line {}.",
                                    dir.name, (*macro)->text, renamed((*macro)->text), f.lexed.directives[e].line),
                        "Test the toolkit the build really uses (__HIP_PLATFORM_AMD__, HIP_VERSION) before CUDA's "
                        "version, or define the CUDA macro in the HIP build.");
          break;
        }
      // A project never built for HIP did not choose this branch for it: HIP compiles the one
      // written for toolkits older than the test and drops the #else every CUDA build compiles
      // (cuda-kat's `#if (__CUDACC_VER_MAJOR__ < 9)` legacy votes without a mask).
      if (!p.facts.hip_branches && !is_endif && f.lexed.directives[end].name == "else") {
        const std::size_t else_end = branch_end(f, end).first;
        const auto [first, last] = lines_between(f, d, end);
        const auto [e_first, e_last] = lines_between(f, end, else_end);
        const bool version = (*macro)->text.find("VER") != std::string::npos;  // CUDA_VERSION, __CUDACC_VER_MAJOR__
        const auto at = static_cast<std::size_t>(macro - toks.begin());
        const bool tested_defined = dir.name == "ifdef" || dir.name == "ifndef" ||
                                    (at >= 1 && toks[at - 1]->text == "defined") ||
                                    (at >= 2 && toks[at - 1]->text == "(" && toks[at - 2]->text == "defined");
        if (!removed(f, d, end, first, last).empty() && !removed(f, end, else_end, e_first, e_last).empty())
          sink.add_with(
              RuleId::pp_cuda_only_macro, Severity::warning, static_cast<std::size_t>(*macro - f.lexed.tokens.data()),
              fmt::format("`#{}` tests {}, which only CUDA defines{}: {}, the condition is "
                          "true, so a HIP build compiles this branch ({}){} and drops the #else ({}), "
                          "which {} compile.",
                          dir.name, (*macro)->text, renamed((*macro)->text),
                          tested_defined ? "HIP does not define it" : "HIP reads it as 0", span(first, last),
                          version ? ", written for CUDA toolkits older than the test," : "", span(e_first, e_last),
                          version ? std::string("newer toolkits")
                                  : fmt::format("CUDA compilations that define {}", (*macro)->text)),
              "Choose the branch for HIP explicitly (#if !defined(__HIP_PLATFORM_AMD__) && "
              "CUDA_VERSION < N) and check that the code HIP compiles is meant for it.");
      }
      continue;
    }
    if (on_hip != Tri::no) continue;
    const auto [first, last] = lines_between(f, d, end);
    const Removed r = removed(f, d, end, first, last);
    if (r.empty()) continue;
    // The span, and how much of it is code: a branch of directives only (`#include <cuda_fp16.h>`,
    // `#define`s) drops no line of code but what it includes and defines.
    std::string what = r.code_lines > 0 ? fmt::format("{} {} of code ({})", r.code_lines,
                                                      r.code_lines == 1 ? "line" : "lines", span(first, last))
                                        : span(first, last);
    if (!r.includes.empty()) what += ", including " + listed(r.includes);
    if (!r.defines.empty()) what += ", defining " + listed(r.defines);
    if (!r.api.empty()) what += ", calling " + listed(r.api);
    const std::size_t at = static_cast<std::size_t>(*macro - f.lexed.tokens.data());
    const std::vector<int> work = dropped_work(p, f, d, r.defines);
    const auto with_work = [&work](Finding* x) {
      if (x) x->also.insert(x->also.end(), work.begin(), work.end());
    };
    std::string instead;
    if (!is_endif) {
      // An #else that holds only a message (a pragma, a comment) leaves HIP without the branch as
      // surely as no #else. One with code is what a HIP build compiles instead: the branch for
      // toolkits older than the test, not HIP's (faiss' pre-CUDA-9 shuffles without masks).
      const std::size_t else_end = branch_end(f, end).first;
      const auto [e_first, e_last] = lines_between(f, end, else_end);
      if (!removed(f, end, else_end, e_first, e_last).empty()) {
        // A project with HIP branches chose what HIP compiles (ggml's #else for toolkits
        // without __CUDA_ARCH_LIST__); one never built for HIP did not.
        if (p.facts.hip_branches) continue;
        with_work(sink.add_with(
            RuleId::pp_cuda_only_macro, Severity::warning, static_cast<std::size_t>(*macro - f.lexed.tokens.data()),
            fmt::format("`#{}` tests {}, which only CUDA defines{}: the condition is false on HIP, so a "
                        "HIP build compiles the #{} (lines {}-{}), the branch written for CUDA toolkits "
                        "older than the test, and drops {}.{}",
                        dir.name, (*macro)->text, renamed((*macro)->text), f.lexed.directives[end].name, e_first,
                        e_last, what,
                        lines_said(" It takes with it PTX and tests of CUDA's macros a port rewrites", work)),
            "Choose the branch for HIP explicitly (#if defined(__HIP_PLATFORM_AMD__) || CUDA_VERSION >= N) "
            "and check that the code HIP compiles is meant for it."));
        continue;
      }
      instead = fmt::format(" The #{} (lines {}-{}) holds no code, only a message.", f.lexed.directives[end].name,
                            e_first, e_last);
    }
    const auto use = used_elsewhere(p, f, first, last, r.defines);
    std::string after = use ? fmt::format(" Code a HIP build compiles uses {} (line {}), which is then missing.",
                                          use->first, use->second)
                            : std::string();
    with_work(sink.add_with(
        RuleId::pp_cuda_only_macro, use ? Severity::error : Severity::warning, at,
        fmt::format("`#{}` tests {}, which only CUDA defines{}: the condition is false on HIP{}, "
                    "so a HIP build silently drops {}.{}{}{}",
                    dir.name, (*macro)->text, renamed((*macro)->text), is_endif ? " and there is no #else" : "", what,
                    instead, after,
                    lines_said(" It takes with it PTX and tests of CUDA's macros a port rewrites", work))));
  }
}

}  // namespace dcukit::port
