#include "port/warp_sync.h"

#include <map>

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

bool is_primitive(std::string_view n) {
  static const Names k = {"__ballot",       "__any",          "__all",          "__activemask",   "__lanemask_lt",
                          "__lanemask_le",  "__lanemask_gt",  "__lanemask_ge",  "__lanemask_eq",  "__lane_id",
                          "__match_any",    "__match_all",    "__reduce_add",   "__fns",          "laneid"};
  return is_shuffle(n) || is_sync_intrinsic(n) || k.count(n) > 0;
}

/// A cooperative-groups tile's member: tile.shfl_down(v, o), tile.ballot(p).
bool is_tile_member(std::string_view n) {
  static const Names k = {"shfl", "shfl_down", "shfl_up", "shfl_xor", "ballot", "any", "all", "match_any", "match_all"};
  return k.count(n) > 0;
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

/// Per scope of one stream: whether it holds warp-synchronous code.
std::map<int, bool> synchronous_scopes(const StreamView& v, const ProjectFacts& facts) {
  std::map<int, bool> out;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const int s = v.scope(k);
    if (s == -1) continue;  // file scope runs no code
    bool& sync = out[s];
    if (!sync && v.file.reach(v.index(k)) != Reach::skipped && warp_synchronous_at(v, k, facts)) sync = true;
  }
  return out;
}

}  // namespace

bool warp_synchronous_at(const StreamView& v, std::size_t k, const ProjectFacts& facts) {
  const Token& t = v.at(k);
  if (t.kind != TokenKind::identifier) return false;
  if (facts.warp_sync_names.count(t.text)) return v.is(k + 1, "(") || v.is(k + 1, "<");
  if (is_primitive(t.text)) return true;
  return k > 0 && (v.is(k - 1, ".") || v.is(k - 1, "->")) && is_tile_member(t.text) && v.is(k + 1, "(");
}

void find_warp_synchronous_code(Project& p) {
  auto& F = p.facts;
  if (F.warp32.empty()) return;  // nothing to place
  // Functions and macros that hold warp-synchronous code, and those that call them, to a fixed point.
  for (int round = 0; round < 8; ++round) {
    const std::size_t before = F.warp_sync_names.size();
    for (const auto& [name, def] : p.pp.definitions)
      if (def.function_like && !F.warp_sync_names.count(name) && body_is_warp_synchronous(def.body, F))
        F.warp_sync_names.insert(name);
    for (const SourceFile& f : p.files)
      for (const Stream& s : f.streams) {
        if (s.define >= 0) continue;
        const StreamView v{f, s};
        const auto sync = synchronous_scopes(v, F);
        for (std::size_t k = 0; k < v.size(); ++k) {
          if (!v.is(k, "{") || v.scope(k) < 0 || (k > 0 && v.scope(k - 1) == v.scope(k))) continue;
          auto it = sync.find(v.scope(k));
          if (it == sync.end() || !it->second) continue;
          if (auto fn = function_name(v, k)) F.warp_sync_names.insert(*fn);
        }
      }
    if (F.warp_sync_names.size() == before) break;
  }
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
        auto it = sync.find(v.scope(k));
        if (it != sync.end() && it->second) c->second.sync_uses.insert({fi, v.index(k)});
      }
    }
  }
}

}  // namespace dcukit::port
