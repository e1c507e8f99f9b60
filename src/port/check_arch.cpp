// arch.cuda-arch: the conditionals that test __CUDA_ARCH__ (itself, through a macro defined from
// it, or beside CUDA's other macros) whose outcome on HIP depends on it, with what the branch HIP
// drops holds; and a shim that defines __CUDA_ARCH__ for HIP.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "port/check.h"
#include "port/pp_expr.h"
#include "port/preprocess.h"
#include "port/syntax.h"

namespace dcukit::port {

/// " through NAME (defined at file:line)" where `name` is a macro defined from __CUDA_ARCH__.
std::string through_arch_macro(const Project& p, const std::string& name) {
  const auto it = p.facts.arch_macros.find(name);
  if (it == p.facts.arch_macros.end()) return {};
  const SourceFile& def = p.files[it->second.file];
  // nvcc's list of target architectures stands for __CUDA_ARCH__ (cuCollections' __config).
  bool from_list = false;
  for (auto [d, end] = p.pp.definitions.equal_range(name); d != end; ++d)
    for (const Token* t : d->second.body) from_list = from_list || t->text == "__CUDA_ARCH_LIST__";
  return fmt::format(" through {} ({} at {}:{})", name,
                     p.facts.arch_flags.count(name) ? "set by a __CUDA_ARCH__ test"
                     : from_list                    ? "defined from __CUDA_ARCH_LIST__, nvcc's target architectures,"
                                                    : "defined from it",
                     def.path, def.lexed.tokens[it->second.token].line);
}

std::string lines_said(std::string_view what, const std::vector<int>& lines) {
  if (lines.empty()) return {};
  std::string s = fmt::format("{} (line{} {}", what, lines.size() == 1 ? "" : "s", lines.front());
  for (std::size_t i = 1; i < lines.size() && i < 8; ++i) s += fmt::format(", {}", lines[i]);
  return s + (lines.size() > 8 ? fmt::format(", ... {} in all).", lines.size()) : ").");
}

namespace {

/// Lines of the branch that directive d opens which keep a vote in 32 bits, read as
/// wave64.ballot-width would read them in a branch HIP compiles: a port that fixes the test makes
/// them live (moderngpu's legacy `y = __ballot(predicate)` under `__CUDA_ARCH__ >= 300`).
std::vector<int> narrow_votes_in_branch(const Project& p, const SourceFile& f, std::size_t d) {
  const auto [begin, end] = branch_tokens(f, d);
  std::vector<Finding> probed;
  Sink probe(p, f, probed);
  for (const Stream& s : f.streams) {
    const StreamView v{f, s};
    for (std::size_t k = 0; k < v.size(); ++k)
      if (v.index(k) >= begin && v.index(k) < end) check_masks_at(probe, v, k);
  }
  std::set<int> out;
  for (const Finding& x : probed)
    if (x.rule == RuleId::wave64_ballot_width) out.insert(x.line);
  return {out.begin(), out.end()};
}

/// A conditional directive that tests __CUDA_ARCH__, itself or through a macro defined from it,
/// and whose outcome on HIP depends on it.
void cuda_arch_directives(Sink& sink) {
  const SourceFile& f = sink.file();
  const Project& p = sink.project();
  if (!p.facts.cuda_arch_shims.empty()) return;  // reported once, at the shim
  for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
    const Directive& dir = f.lexed.directives[d];
    if (dir.name != "if" && dir.name != "ifdef" && dir.name != "ifndef" && dir.name != "elif") continue;
    if (f.reach(dir.hash) != Reach::shared) continue;
    const auto toks = directive_tokens(f, d);
    auto arch = std::find_if(toks.begin(), toks.end(), [&p](const Token* t) {
      return t->text == "__CUDA_ARCH__" || p.facts.arch_macros.count(t->text) > 0;
    });
    if (arch == toks.end()) continue;
    // Does the outcome on HIP depend on __CUDA_ARCH__? Trace it as a tainted unknown: a test ANDed
    // with an explicit HIP exclusion is decided without it. CUDA's other macros are traced with it
    // (moderngpu's `__CUDACC_VER_MAJOR__ >= 9 && __CUDA_ARCH__ >= 300`: either alone decides nothing).
    // A macro defined from __CUDA_ARCH__ is the unknown itself, whether or not its body evaluates
    // here (cuCollections' _NV_FIRST_ARG(__CUDA_ARCH_LIST__) calls a macro of <nv/target>).
    // Whether it is defined is HIP's answer, as for any macro (#ifdef BNB_BF16_AVAILABLE).
    const MacroLookup traced = [&p](std::string_view n) {
      if (n == "__CUDA_ARCH__" || is_cuda_only_macro(n) || p.facts.arch_flags.count(n))
        return MacroInfo{Tri::unknown, false, nullptr, true};
      MacroInfo m = p.pp.hip.lookup(n);
      if (p.facts.arch_macros.count(n) && m.defined == Tri::yes) return MacroInfo{Tri::yes, false, nullptr, true};
      return m;
    };
    bool depends = false;
    directive_truth(f, d, traced, &depends);
    if (!depends) continue;
    const Tri on_hip = directive_truth(f, d, [&p](std::string_view n) { return p.pp.hip.lookup(n); });
    const std::string outcome = on_hip == Tri::yes  ? "true on HIP, where __CUDA_ARCH__ reads as 0"
                                : on_hip == Tri::no ? "false on HIP, which drops this branch (for the #else, if any)"
                                                    : "evaluated on HIP with __CUDA_ARCH__ as 0";
    // What the branch HIP drops holds: its PTX is NVIDIA-only code a port leaves behind.
    const std::vector<int> removed = on_hip == Tri::no ? ptx_lines_in_branch(f, d) : std::vector<int>{};
    const std::vector<int> nested = on_hip == Tri::no ? cuda_tests_in_branch(p, f, d) : std::vector<int>{};
    const std::vector<int> votes = on_hip == Tri::no ? narrow_votes_in_branch(p, f, d) : std::vector<int>{};
    // A flag an arch test sets (TURBOMIND_ARCH_SM80, 1 or 0) is tested for what HIP drops with
    // it: the flag's own definition is the arch test; a branch of plain code it selects on HIP
    // is the project's fallback (CTranslate2's CUDA_CAN_USE_HALF, 1 on HIP).
    const bool flags_only = std::all_of(toks.begin(), toks.end(), [&p](const Token* t) {
      return t->text != "__CUDA_ARCH__" && (!p.facts.arch_macros.count(t->text) || p.facts.arch_flags.count(t->text));
    });
    if (flags_only && removed.empty() && nested.empty() && votes.empty()) continue;
    std::string holds = lines_said(" The branch it drops holds inline PTX", removed);
    holds += lines_said(
        " Its tests of __CUDA_ARCH__ and CUDA's macros, which HIP never reaches, are a port's to rewrite too", nested);
    holds += lines_said(
        " Its votes kept in 32 bits lose lanes 32-63 of HIP's 64-bit masks once a port lets HIP compile the branch",
        votes);
    Finding* x = sink.add(RuleId::arch_cuda_arch, static_cast<std::size_t>(*arch - f.lexed.tokens.data()),
                          fmt::format("`#{}` tests __CUDA_ARCH__{}, which HIP never defines: the condition is {}.{}",
                                      dir.name, through_arch_macro(p, (*arch)->text), outcome, holds));
    if (x) {
      x->also.insert(x->also.end(), removed.begin(), removed.end());
      x->also.insert(x->also.end(), nested.begin(), nested.end());
      x->also.insert(x->also.end(), votes.begin(), votes.end());
      std::sort(x->also.begin(), x->also.end());
    }
  }
}

void cuda_arch_shim(Sink& sink) {
  const Project& p = sink.project();
  for (const Place& s : p.facts.cuda_arch_shims) {
    if (&p.files[s.file] != &sink.file()) continue;
    int tests = 0;
    for (const SourceFile& f : p.files)
      for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
        const auto& n = f.lexed.directives[d].name;
        if ((n == "if" || n == "elif" || n == "ifdef" || n == "ifndef") &&
            f.reach(f.lexed.directives[d].hash) != Reach::skipped)
          for (const Token* t : directive_tokens(f, d))
            if (t->text == "__CUDA_ARCH__") {
              ++tests;
              break;
            }
      }
    sink.add(
        RuleId::arch_cuda_arch, s.token,
        fmt::format("__CUDA_ARCH__ is defined for HIP here, so every `__CUDA_ARCH__ >= N` test is true on HIP "
                    "({} {} in these files): each NVIDIA-only branch must exclude HIP explicitly.",
                    tests, tests == 1 ? "test" : "tests"),
        "Keep the explicit HIP exclusions (ggml writes !(defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__))); "
        "prefer feature macros to architecture numbers.");
  }
}

}  // namespace

/// Lines of the conditional directives nested in the branch that directive d opens which test
/// __CUDA_ARCH__ (moderngpu's chain of `#elif __CUDA_ARCH__ == 860` inside `#ifdef __CUDA_ARCH__`)
/// or a macro only CUDA defines (lmdeploy's `#if defined(__CUDACC_RTC__)` inside an arch test).
std::vector<int> cuda_tests_in_branch(const Project& p, const SourceFile& f, std::size_t d) {
  const std::size_t end = branch_end(f, d).first;
  std::vector<int> out;
  for (std::size_t e = d + 1; e < end && e < f.lexed.directives.size(); ++e) {
    const std::string& n = f.lexed.directives[e].name;
    if (n != "if" && n != "elif" && n != "ifdef" && n != "ifndef") continue;
    for (const Token* t : directive_tokens(f, e))
      if (t->text == "__CUDA_ARCH__" || p.facts.arch_macros.count(t->text) || is_cuda_only_macro(t->text)) {
        out.push_back(f.lexed.directives[e].line);
        break;
      }
  }
  return out;
}

void check_arch(Sink& sink) {
  cuda_arch_directives(sink);
  cuda_arch_shim(sink);
}

}  // namespace dcukit::port
