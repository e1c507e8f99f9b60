#include "port/warp_sync.h"

#include <algorithm>
#include <map>

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

bool is_primitive(std::string_view n) {
  static const Names k = {"__ballot", "__any", "__all", "__activemask", "__lanemask_lt", "__lanemask_le",
                          "__lanemask_gt", "__lanemask_ge", "__lanemask_eq", "__lane_id", "__match_any", "__match_all",
                          "__reduce_add", "__fns", "laneid",
                          // PyTorch's ATen/cuda/DeviceUtils.cuh, which extensions include from outside the files
                          "WARP_SHFL", "WARP_SHFL_UP", "WARP_SHFL_DOWN", "WARP_SHFL_XOR", "WARP_BALLOT"};
  return is_shuffle(n) || is_sync_intrinsic(n) || k.count(n) > 0;
}

/// A cooperative-groups tile's member: tile.shfl_down(v, o), tile.ballot(p).
bool is_tile_member(std::string_view n) {
  static const Names k = {"shfl", "shfl_down", "shfl_up", "shfl_xor", "ballot", "any", "all", "match_any", "match_all"};
  return k.count(n) > 0;
}

/// A primitive whose lanes are the hardware's, not a 32-lane logical warp's, on a 64-lane
/// wavefront: a vote, a lane mask or id, and a shuffle from an absolute lane or upwards without a
/// width (lanes 32-63 read lanes 0-31). `args` is the call's argument count, -1 where unknown.
/// Width-less shfl_down and shfl_xor trees with offsets under 32 stay inside each half.
bool lane_exact(std::string_view n, int args) {
  if (n == "__shfl_down" || n == "__shfl_xor" || n == "__shfl_down_sync" || n == "__shfl_xor_sync" ||
      n == "__syncwarp" || n == "WARP_SHFL_DOWN" || n == "WARP_SHFL_XOR")
    return false;
  // No width: the whole wavefront (ATen's WARP_SHFL defaults it to warpSize).
  if (n == "__shfl" || n == "__shfl_up" || n == "WARP_SHFL" || n == "WARP_SHFL_UP") return args < 3;
  if (n == "__shfl_sync" || n == "__shfl_up_sync") return args < 4;
  return is_primitive(n);
}

/// The argument count of the call whose "(" is body[open], -1 where it does not close.
int body_args(const std::vector<const Token*>& body, std::size_t open) {
  int depth = 0, commas = 0;
  for (std::size_t i = open; i < body.size(); ++i) {
    const std::string& t = body[i]->text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if (t == ")" || t == "]" || t == "}")
      if (--depth == 0) return i == open + 1 ? 0 : commas + 1;
    if (t == "," && depth == 1) ++commas;
  }
  return -1;
}

/// Whether `body` (a macro's tokens) calls lane-exact code.
bool body_is_lane_exact(const std::vector<const Token*>& body, const ProjectFacts& facts) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i]->kind != TokenKind::identifier) continue;
    const std::string& n = body[i]->text;
    if (facts.lane_exact_names.count(n)) return true;
    if (!is_primitive(n)) continue;
    const int args = i + 1 < body.size() && body[i + 1]->text == "(" ? body_args(body, i + 1) : -1;
    if (lane_exact(n, args)) return true;
  }
  return false;
}

/// Whether `body` (a macro's tokens) calls warp-synchronous code.
bool body_is_warp_synchronous(const std::vector<const Token*>& body, const ProjectFacts& facts) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    const std::string& n = body[i]->text;
    if (body[i]->kind != TokenKind::identifier) continue;
    if (is_primitive(n) || facts.warp_sync_names.count(n)) return true;
    if (i > 0 && body[i - 1]->text == "." && is_tile_member(n) && i + 1 < body.size() && body[i + 1]->text == "(")
      return true;
  }
  return false;
}

/// Whether stream position k is lane-exact: see lane_exact(), or a call of the files' functions and
/// macros that hold such code.
bool lane_exact_at(const StreamView& v, std::size_t k, const ProjectFacts& facts) {
  const Token& t = v.at(k);
  if (t.kind != TokenKind::identifier) return false;
  if (facts.lane_exact_names.count(t.text)) return v.is(k + 1, "(") || v.is(k + 1, "<");
  // The hardware width beside a 32 (warpSize / 2 as the first offset): the tree spans the
  // wavefront while the constant splits it in halves.
  if (facts.hardware_width.count(t.text)) return true;
  if (!is_primitive(t.text)) return false;
  const int args = v.is(k + 1, "(") ? static_cast<int>(call_args(v, k + 1).size()) : -1;
  return lane_exact(t.text, args);
}

struct ScopeKind {
  bool sync = false;   ///< holds warp-synchronous code
  bool exact = false;  ///< and some of it is lane-exact
};

/// Per scope of one stream: whether it holds warp-synchronous code, and lane-exact code.
std::map<int, ScopeKind> synchronous_scopes(const StreamView& v, const ProjectFacts& facts) {
  std::map<int, ScopeKind> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const int s = v.scope(k);
    if (s == -1) continue;  // file scope runs no code
    ScopeKind& kind = out[s];
    if (v.file.reach(v.index(k)) == Reach::skipped) continue;
    if (!kind.sync && warp_synchronous_at(v, k, facts)) kind.sync = true;
    if (!kind.exact && lane_exact_at(v, k, facts)) kind.exact = true;
  }
  return out;
}

/// Whether `file` has a #define of `name` of its own.
bool defines(const Project& p, const std::string& name, std::size_t file) {
  const auto [first, last] = p.pp.definitions.equal_range(name);
  return std::any_of(first, last, [&](const auto& e) { return e.second.file == file; });
}

}  // namespace

bool warp_synchronous_at(const StreamView& v, std::size_t k, const ProjectFacts& facts) {
  const Token& t = v.at(k);
  if (t.kind != TokenKind::identifier) return false;
  if (facts.warp_sync_names.count(t.text)) return v.is(k + 1, "(") || v.is(k + 1, "<");
  if (is_primitive(t.text)) return true;
  return k > 0 && (v.is(k - 1, ".") || v.is(k - 1, "->")) && is_tile_member(t.text) && v.is(k + 1, "(");
}

std::set<int> warp_synchronous_scopes(const StreamView& v, const ProjectFacts& facts) {
  std::set<int> out;
  for (const auto& [scope, kind] : synchronous_scopes(v, facts))
    if (kind.sync) out.insert(scope);
  return out;
}

void find_warp_synchronous_code(Project& p) {
  auto& F = p.facts;
  // Functions and macros that hold warp-synchronous code, and those that call them, to a fixed point.
  for (int round = 0; round < 8; ++round) {
    const std::size_t before = F.warp_sync_names.size() + F.lane_exact_names.size();
    for (const auto& [name, def] : p.pp.definitions) {
      if (def.function_like && !F.warp_sync_names.count(name) && body_is_warp_synchronous(def.body, F))
        F.warp_sync_names.insert(name);
      if (def.function_like && !F.lane_exact_names.count(name) && body_is_lane_exact(def.body, F))
        F.lane_exact_names.insert(name);
    }
    for (const SourceFile& f : p.files)
      for (const Stream& s : f.streams) {
        if (s.define >= 0) continue;
        const StreamView v{f, s};
        const auto sync = synchronous_scopes(v, F);
        for (std::size_t k = 0; k < v.size(); ++k) {
          if (!v.is(k, "{") || v.scope(k) < 0 || (k > 0 && v.scope(k - 1) == v.scope(k))) continue;
          auto it = sync.find(v.scope(k));
          if (it == sync.end() || !it->second.sync) continue;
          if (auto fn = function_name(v, k)) {
            F.warp_sync_names.insert(*fn);
            if (it->second.exact) F.lane_exact_names.insert(*fn);
          }
        }
      }
    if (F.warp_sync_names.size() + F.lane_exact_names.size() == before) break;
  }
  if (F.warp32.empty()) return;  // no constant to place
  // The constants' uses in warp-synchronous scopes.
  for (std::size_t fi = 0; fi < p.files.size(); ++fi) {
    const SourceFile& f = p.files[fi];
    for (const Stream& s : f.streams) {
      const StreamView v{f, s};
      const auto sync = synchronous_scopes(v, F);
      for (std::size_t k = 0; k < v.size(); ++k) {
        auto c = F.warp32.find(v.at(k).text);
        if (c == F.warp32.end() || f.reach(v.index(k)) == Reach::skipped) continue;
        if (c->second.where.file == fi && c->second.where.token == v.index(k)) continue;  // the definition
        if (c->second.where.file != fi && defines(p, c->first, fi)) continue;  // this file's own meaning
        auto it = sync.find(v.scope(k));
        if (it == sync.end() || !it->second.sync) continue;
        c->second.sync_uses.insert({fi, v.index(k)});
        if (it->second.exact) c->second.lane_exact = true;
      }
    }
  }
}

}  // namespace dcukit::port
