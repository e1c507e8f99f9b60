#include "port/project.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "port/check.h"
#include "port/syntax.h"
#include "port/warp_sync.h"
#include "util/files.h"

namespace dcukit::port {
namespace {

namespace fs = std::filesystem;

bool span_mentions(const StreamView& v, Span s, const std::set<std::string, std::less<>>& names) {
  for (std::size_t k = s.begin; k < s.end; ++k)
    if (v.at(k).kind == TokenKind::identifier && names.count(v.at(k).text)) return true;
  return false;
}

bool span_is_32(const StreamView& v, Span s) {
  while (s.size() >= 2 && v.is(s.begin, "(") && v.is(s.end - 1, ")")) {
    ++s.begin;
    --s.end;
  }
  return s.size() == 1 && is_literal(v.at(s.begin), 32);
}

/// Adds a definition of `name` once, however many rounds see it.
void add_place(std::multimap<std::string, Place, std::less<>>& m, const std::string& name, const Place& at) {
  for (auto [it, end] = m.equal_range(name); it != end; ++it)
    if (it->second.file == at.file && it->second.token == at.token) return;
  m.emplace(name, at);
}

void scan_declarations(Project& p, bool first_round) {
  auto& F = p.facts;
  for (std::size_t fi = 0; fi < p.files.size(); ++fi) {
    const SourceFile& f = p.files[fi];
    for (const Stream& s : f.streams) {
      const StreamView v{f, s};
      if (s.define >= 0) {
        const Directive& d = f.lexed.directives[s.define];
        const Token& name = f.tok(d.first);
        if (f.hip[d.hash] == Tri::no) continue;
        const bool function_like =
            d.first + 1 < d.end && f.tok(d.first + 1).text == "(" && f.tok(d.first + 1).begin == name.end;
        if (span_mentions(v, {0, v.size()}, F.hardware_width)) F.hardware_width.insert(name.text);
        if (function_like || !first_round) continue;
        if (v.size() > 0 && is_full_mask_32(v, {0, v.size()}, F))
          add_place(F.full_masks, name.text, Place{fi, d.first});
        if (looks_like_warp_size(name.text) && span_is_32(v, {0, v.size()}))
          F.warp32.emplace(name.text, WarpConstant{Place{fi, d.first}, false});
        continue;
      }
      int last_scope = -1;
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (f.reach(v.index(k)) == Reach::skipped) continue;
        const Token& t = v.at(k);
        // Functions returning the hardware width.
        if (v.scope(k) >= 0 && v.scope(k) != last_scope && t.text == "{") {
          if (auto fn = function_name(v, k)) {
            if (first_round) F.defined_names.insert(*fn);
            if (first_round && f.reach(v.index(k)) == Reach::shared) F.own_names.insert(*fn);
            for (std::size_t j = k; j < v.size() && v.scope(j) == v.scope(k); ++j)
              if (v.is(j, "return") && f.reach(v.index(j)) != Reach::skipped) {
                std::size_t e = j;
                while (e < v.size() && !v.is(e, ";")) ++e;
                if (span_mentions(v, {j + 1, e}, F.hardware_width)) F.hardware_width.insert(*fn);
              }
          }
        }
        last_scope = v.scope(k);
        // Variables stand for the hardware width everywhere only when declared outside functions;
        // a function's locals are followed per scope by the rules (check_wave64.cpp).
        if (!first_round) {
          if (t.text == "=" && k > 0 && v.scope(k) < 0 && v.at(k - 1).kind == TokenKind::identifier &&
              span_mentions(v, initializer(v, k), F.hardware_width))
            F.hardware_width.insert(v.at(k - 1).text);
          continue;
        }
        if (t.kind == TokenKind::identifier && (t.text == "struct" || t.text == "class" || t.text == "union") &&
            k + 1 < v.size() && v.at(k + 1).kind == TokenKind::identifier) {
          F.defined_names.insert(v.at(k + 1).text);
          if (f.reach(v.index(k)) == Reach::shared) F.own_names.insert(v.at(k + 1).text);
        }
        if (t.text == "namespace" && k + 1 < v.size() && v.at(k + 1).kind == TokenKind::identifier &&
            f.reach(v.index(k)) == Reach::shared)
          F.namespaces.insert(v.at(k + 1).text);
        if (t.text == "typedef") {
          std::size_t e = k + 1;
          while (e < v.size() && !v.is(e, ";")) ++e;
          if (e > k + 2 && v.at(e - 1).kind == TokenKind::identifier) {
            std::string type;
            for (std::size_t j = k + 1; j + 1 < e; ++j) type += (type.empty() ? "" : " ") + v.at(j).text;
            F.typedefs[v.at(e - 1).text] = type;
            F.defined_names.insert(v.at(e - 1).text);
          }
        }
        if (t.text == "using" && k + 2 < v.size() && v.at(k + 1).kind == TokenKind::identifier && v.is(k + 2, "=")) {
          const Span init = initializer(v, k + 2);
          std::string type;
          for (std::size_t j = init.begin; j < init.end; ++j) type += (type.empty() ? "" : " ") + v.at(j).text;
          F.typedefs[v.at(k + 1).text] = type;
          F.defined_names.insert(v.at(k + 1).text);
        }
        if (t.text != "=" || k == 0 || v.at(k - 1).kind != TokenKind::identifier) continue;
        const std::string& name = v.at(k - 1).text;
        const Span init = initializer(v, k);
        const bool declared = declared_type(v, k - 1).has_value();
        if (declared && v.scope(k) < 0 && is_full_mask_32(v, init, F))
          add_place(F.full_masks, name, Place{fi, v.index(k - 1)});
        if (declared && looks_like_warp_size(name) && span_is_32(v, init))
          F.warp32.emplace(name, WarpConstant{Place{fi, v.index(k - 1)}, false});
        if (v.scope(k) < 0 && span_mentions(v, init, F.hardware_width)) F.hardware_width.insert(name);
      }
    }
  }
}

/// Whether `name`, which some definition makes the hardware width, is that in `file`: a variable
/// (not a macro) is taken to be everywhere, a macro only where the file defines it so.
bool hardware_in_file(const Project& p, const std::string& name, std::size_t file) {
  const auto [first, last] = p.pp.definitions.equal_range(name);
  if (first == last) return true;
  for (auto it = first; it != last; ++it)
    if (it->second.file == file &&
        std::any_of(it->second.body.begin(), it->second.body.end(),
                    [&](const Token* t) { return p.facts.hardware_width.count(t->text) > 0; }))
      return true;
  return false;
}

/// The function-like macros the files define and name nowhere else.
std::set<std::string, std::less<>> unexpanded_macros(const Project& p) {
  std::map<std::string_view, int> named;  // how often the files name each
  for (const auto& [name, def] : p.pp.definitions)
    if (def.function_like) named.emplace(name, 0);
  for (const SourceFile& f : p.files)
    for (const Token& t : f.lexed.tokens)
      if (t.kind == TokenKind::identifier)
        if (auto it = named.find(t.text); it != named.end()) ++it->second;
  std::set<std::string, std::less<>> out;
  for (const auto& [name, n] : named)
    if (n <= static_cast<int>(p.pp.definitions.count(name))) out.emplace(name);
  return out;
}

/// Marks the warp-size constants that a shuffle receives as its width, directly or through a name
/// initialised with them (ggml's `template <int width = WARP_SIZE>`).
void mark_widths(Project& p) {
  std::map<std::string, std::string, std::less<>> alias;
  for (const SourceFile& f : p.files)
    for (const Stream& s : f.streams) {
      const StreamView v{f, s};
      for (std::size_t k = 1; k + 2 < v.size(); ++k)
        if (v.is(k, "=") && v.at(k - 1).kind == TokenKind::identifier && p.facts.warp32.count(v.at(k + 1).text) &&
            (v.is(k + 2, ">") || v.is(k + 2, ",") || v.is(k + 2, ";")))
          alias.emplace(v.at(k - 1).text, v.at(k + 1).text);
    }
  for (const SourceFile& f : p.files)
    for (const Stream& s : f.streams) {
      const StreamView v{f, s};
      for (std::size_t k = 0; k + 1 < v.size(); ++k) {
        if (!is_shuffle(v.at(k).text) || !v.is(k + 1, "(") || f.reach(v.index(k)) == Reach::skipped) continue;
        const auto args = call_args(v, k + 1);
        const std::size_t want = is_sync_intrinsic(v.at(k).text) ? 4 : 3;
        if (args.size() != want || args.back().size() != 1) continue;
        std::string width = v.at(args.back().begin).text;
        if (auto a = alias.find(width); a != alias.end()) width = a->second;
        auto it = p.facts.warp32.find(width);
        if (it != p.facts.warp32.end()) it->second.used_as_width = true;
      }
    }
}

/// Whether a conditional of the project names HIP (its platform macros or a HIP switch), or a
/// file includes a header under hip/: positive evidence that it is built for HIP. (Code that only
/// a HIP build compiles is not: `#ifndef CUDART_VERSION #error` is such code in a CUDA project.)
bool tests_hip(const Project& p, const std::vector<std::string>& switches) {
  for (const SourceFile& f : p.files)
    for (std::size_t d = 0; d < f.lexed.directives.size(); ++d) {
      const std::string& name = f.lexed.directives[d].name;
      const bool conditional = name == "if" || name == "ifdef" || name == "ifndef" || name == "elif";
      if (!conditional && name != "include") continue;
      for (const Token* t : directive_tokens(f, d)) {
        if (name == "include" && (starts_with(t->text, "<hip/") || starts_with(t->text, "\"hip/"))) return true;
        if (conditional && (starts_with(t->text, "__HIP") ||
                            std::find(switches.begin(), switches.end(), t->text) != switches.end()))
          return true;
      }
    }
  return false;
}

void compute_facts(Project& p, const std::vector<std::string>& hip_switches) {
  auto& F = p.facts;
  F.hardware_width = {"warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"};
  for (const auto& [name, def] : p.pp.definitions) {
    const SourceFile& f = p.files[def.file];
    const Directive& d = f.lexed.directives[def.directive];
    F.defined_names.insert(name);
    if (f.reach(d.hash) == Reach::shared) F.own_names.insert(name);
    if (f.hip[d.hash] == Tri::no) continue;
    if (def.function_like && is_sync_intrinsic(name) && !def.params.empty()) {
      const bool uses_mask =
          std::any_of(def.body.begin(), def.body.end(), [&](const Token* t) { return t->text == def.params.front(); });
      if (!uses_mask) F.shimmed_sync.insert(name);
    }
    if (name == "__CUDA_ARCH__") F.cuda_arch_shims.push_back(Place{def.file, d.first});
    if (!def.function_like && def.body.size() == 1 && f.reach(d.hash) == Reach::hip_only &&
        (starts_with(name, "cu") || starts_with(name, "CU")) &&
        (starts_with(def.body[0]->text, "hip") || starts_with(def.body[0]->text, "HIP")))
      F.vendor_map.emplace(name, Place{def.file, d.first});
  }
  // Macros defined from __CUDA_ARCH__, directly or through one another, to a fixed point; and
  // flags a __CUDA_ARCH__ test sets (lmdeploy's `#define TURBOMIND_ARCH_SM80 1`, else 0).
  // __CUDA_ARCH_LIST__ (nvcc 11.5+: the architectures compiled for) is the same test
  // (cuCollections' CUCO_CUDA_MINIMUM_ARCH _NV_FIRST_ARG(__CUDA_ARCH_LIST__)).
  const auto arch = [&F](const Token* t) {
    return t->text == "__CUDA_ARCH__" || t->text == "__CUDA_ARCH_LIST__" || F.arch_macros.count(t->text) > 0;
  };
  for (bool grew = true; grew && F.cuda_arch_shims.empty();) {
    grew = false;
    for (const auto& [name, def] : p.pp.definitions) {
      const SourceFile& f = p.files[def.file];
      const Directive& d = f.lexed.directives[def.directive];
      if (name == "__CUDA_ARCH__" || F.arch_macros.count(name) || f.hip[d.hash] == Tri::no) continue;
      const bool flag = !def.function_like && def.body.size() <= 1 &&
                        (def.body.empty() || def.body[0]->kind == TokenKind::number) &&
                        std::any_of(def.chain.begin(), def.chain.end(), [&](std::size_t c) {
                          const auto toks = directive_tokens(f, c);
                          return std::any_of(toks.begin(), toks.end(), arch);
                        });
      if (!flag && !std::any_of(def.body.begin(), def.body.end(), arch)) continue;
      F.arch_macros.emplace(name, Place{def.file, d.first});
      if (flag) F.arch_flags.insert(name);
      grew = true;
    }
  }
  scan_declarations(p, true);
  for (int round = 0; round < 4; ++round) {
    const std::size_t before = F.hardware_width.size();
    scan_declarations(p, false);
    if (F.hardware_width.size() == before) break;
  }
  // A name some file defines from the hardware width hides a 32 only in that file: another
  // translation unit's `#define WARP_SIZE 32` (exllamav2's head_norm.cu beside layer_norm.cu's
  // USE_ROCM switch) stays a 32 there.
  for (auto it = F.warp32.begin(); it != F.warp32.end();)
    it = F.hardware_width.count(it->first) && hardware_in_file(p, it->first, it->second.where.file)
             ? F.warp32.erase(it)
             : std::next(it);
  mark_widths(p);
  find_warp_synchronous_code(p);
  F.ballot_wrappers = ballot_wrappers(p);
  for (const SourceFile& f : p.files) F.normal_paths.push_back(normal_path(f.path));
  F.included_libraries = libraries_included(p);
  F.torch_libraries = libraries_through_torch(p);
  F.unexpanded_macros = unexpanded_macros(p);
  F.hip_branches = tests_hip(p, hip_switches);
  F.transpose_blocks = transpose_blocks(p);
}

}  // namespace

bool is_sync_intrinsic(std::string_view n) {
  static const std::set<std::string, std::less<>> k = {
      "__shfl_sync",      "__shfl_up_sync",    "__shfl_down_sync",  "__shfl_xor_sync",   "__ballot_sync",
      "__any_sync",       "__all_sync",        "__uni_sync",        "__match_any_sync",  "__match_all_sync",
      "__syncwarp",       "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
      "__reduce_or_sync", "__reduce_xor_sync"};
  return k.count(n) > 0;
}

bool is_shuffle(std::string_view n) {
  return n == "__shfl" || n == "__shfl_up" || n == "__shfl_down" || n == "__shfl_xor" || n == "__shfl_sync" ||
         n == "__shfl_up_sync" || n == "__shfl_down_sync" || n == "__shfl_xor_sync";
}

bool looks_like_warp_size(std::string_view name) {
  std::string s;
  for (char c : name)
    if (c != '_') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"warpsize", "wavesize", "wavefrontsize", "threadsperwarp", "warpsz", "lanesperwarp"})
    if (s.find(w) != std::string::npos) return true;
  return false;
}

std::string normal_path(std::string_view path) {
  return fs::absolute(fs::path(path)).lexically_normal().string();
}

std::size_t resolve_include(const std::vector<std::string>& normal, std::size_t from, std::string_view name) {
  const std::string beside = (fs::path(normal[from]).parent_path() / fs::path(name)).lexically_normal().string();
  for (std::size_t k = 0; k < normal.size(); ++k)
    if (normal[k] == beside) return k;
  const std::string tail = "/" + fs::path(name).lexically_normal().string();
  for (std::size_t k = 0; k < normal.size(); ++k)
    if (normal[k].size() > tail.size() && normal[k].compare(normal[k].size() - tail.size(), tail.size(), tail) == 0)
      return k;
  return std::string::npos;
}

Project make_project(std::vector<std::pair<std::string, std::string>> sources,
                     const std::vector<std::string>& hip_switches) {
  Project p;
  for (auto& [path, text] : sources) {
    SourceFile f;
    f.path = path;
    f.text = std::move(text);
    p.files.push_back(std::move(f));
  }
  for (auto& f : p.files) {  // after the moves: tokens point into the files' own text
    f.lexed = lex(f.text);
    build_streams(f);
  }
  p.pp = preprocess(p.files, hip_switches);
  compute_facts(p, hip_switches);
  return p;
}

Result<Project> load_project(const std::vector<std::string>& files, const std::vector<std::string>& hip_switches) {
  std::vector<std::pair<std::string, std::string>> sources;
  for (const auto& path : files) {
    auto text = util::read_file(path, util::kSourceInput);
    if (!text) return text.error();
    sources.emplace_back(path, std::move(*text));
  }
  return make_project(std::move(sources), hip_switches);
}

}  // namespace dcukit::port
