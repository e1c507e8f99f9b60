// The wave64 rules on lane masks and ballots: 32-bit masks given to *_sync calls (literal, shifted
// in 32 bits, held in a 32-bit variable, or the project's own name for one) and ballots kept in 32
// bits, where a 64-lane wavefront needs 64.
#include <fmt/format.h>

#include <set>

#include "port/check.h"
#include "port/pp_expr.h"
#include "port/syntax.h"
#include "port/warp_sync.h"

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

/// The nearest token before stream position `before` that declares `name` (declared_type reads a
/// type before it), or nullopt.
std::optional<std::size_t> declaration_before(const StreamView& v, std::size_t before, const std::string& name) {
  for (std::size_t j = before; j-- > 0;)
    if (v.at(j).text == name && declared_type(v, j)) return j;
  return std::nullopt;
}

class Masks {
public:
  explicit Masks(Sink& sink) : m_sink(sink), m_facts(sink.project().facts) {}

  void full_mask(const StreamView& v, std::size_t k) {
    const Token& t = v.at(k);
    if (t.kind != TokenKind::identifier || !v.is(k + 1, "(")) return;
    if (is_sync_intrinsic(t.text)) {
      if (m_facts.shimmed_sync.count(t.text)) return;  // a vendor macro drops the mask on HIP
      const auto args = call_args(v, k + 1);
      if (args.empty()) return;
      if (!is_full_mask_32(v, args[0], m_facts)) {
        if (args[0].size() == 1 && is_32_bit_literal(v.at(args[0].begin)) && parse_integer(v.at(args[0].begin).text))
          // GPUSorting's 0xfffffffe (every lane but 0): a partial mask written in 32 bits.
          m_sink.add(RuleId::wave64_full_mask, v.index(args[0].begin),
                     fmt::format("{} passes the 32-bit lane mask {}: lanes 32-63 can never be in it, and HIP 6.2+ "
                                 "rejects a 32-bit mask.",
                                 t.text, v.at(args[0].begin).text),
                     "Write the mask in 64 bits for a 64-lane wavefront (0xfffffffe, every lane but 0, becomes "
                     "0xfffffffffffffffeull), or drop it with the non-sync form where every lane takes part.");
        else if (mask_built_in_32(v, args[0]))
          m_sink.add(RuleId::wave64_full_mask, v.index(args[0].begin),
                     fmt::format("{} passes the mask {}, shifted in 32 bits: lanes 32-63 can never be in it, and "
                                 "HIP 6.2+ rejects a 32-bit mask.",
                                 t.text, span_text(v, args[0])),
                     "Build the mask in 64 bits (0xffffffffffffffffull >> n, (1ull << n) - 1) for a 64-lane "
                     "wavefront, or drop it with the non-sync form where every lane takes part.");
        else
          narrow_mask_variable(v, k, args[0]);
        return;
      }
      const std::string mask = span_text(v, args[0]);
      // The project's own name for the full mask (FasterTransformer's `#define FINAL_MASK
      // 0xffffffff`): one finding at its definition, where the fix goes (check_wave64 below).
      if (args[0].size() == 1 && m_facts.full_masks.count(mask)) return;
      // A mask held in the function's own variable is reported where it is defined, once for all its uses.
      std::size_t at = args[0].begin;
      std::string held;
      if (args[0].size() == 1 && v.at(at).kind == TokenKind::identifier)
        if (const auto local = local_value(v, at, mask); local && local->begin < at) {
          held = fmt::format(" (`{}` holds {}; used by {} on line {})", mask, span_text(v, *local), t.text, t.line);
          at = local->begin;
        }
      m_sink.add(RuleId::wave64_full_mask, v.index(at),
                 fmt::format("{} passes the 32-bit mask {}{} (lanes 0-31); a 64-lane wavefront has lanes 32-63 too: "
                             "HIP 6.2+ rejects a 32-bit mask, older HIP has no {}.",
                             t.text, mask, held, t.text));
      return;
    }
    if (t.text != "__activemask" || !v.is(k + 2, ")")) return;
    // __activemask() == 0xffffffff, either way round.
    if ((v.is(k + 3, "==") || v.is(k + 3, "!=")) && k + 4 < v.size() && is_full_mask_32(v, {k + 4, k + 5}, m_facts))
      m_sink.add(RuleId::wave64_full_mask, v.index(k + 4),
                 "__activemask() is compared with a 32-bit all-ones mask: on a 64-lane wavefront a full wave reads "
                 "0xffffffffffffffff and the test is never true.");
    else if (k >= 2 && (v.is(k - 1, "==") || v.is(k - 1, "!=")) && is_full_mask_32(v, {k - 2, k - 1}, m_facts))
      m_sink.add(RuleId::wave64_full_mask, v.index(k - 2),
                 "A 32-bit all-ones mask is compared with __activemask(): on a 64-lane wavefront a full wave reads "
                 "0xffffffffffffffff and the test is never true.");
  }

  /// A mask shifted out of a 32-bit literal: `0xffffffff >> n`, `(1u << n) - 1`, `~0u << n`.
  static bool mask_built_in_32(const StreamView& v, const Span& s) {
    for (std::size_t q = s.begin + 1; q + 1 < s.end; ++q) {
      if (!v.is(q, "<<") && !v.is(q, ">>")) continue;
      const Token& lhs = v.at(q - 1);
      if (!is_32_bit_literal(lhs)) continue;
      const auto value = parse_integer(lhs.text);
      if (value && (*value == 1 || *value == 0xffffffffLL || (*value == 0 && q >= 2 && v.is(q - 2, "~")))) return true;
    }
    return false;
  }

  /// A mask held in a variable or parameter declared 32 bits wide (`unsigned int mask`): whatever
  /// it holds, a 64-lane wavefront's mask needs 64 bits (HIP 6.2+ rejects a 32-bit one).
  void narrow_mask_variable(const StreamView& v, std::size_t call, const Span& arg) {
    if (arg.size() != 1 || v.at(arg.begin).kind != TokenKind::identifier) return;
    const std::string& name = v.at(arg.begin).text;
    const auto j = declaration_before(v, call, name);
    if (!j) return;
    const auto type = declared_type(v, *j);
    if (type->find('*') != std::string::npos || !is_narrow_integer(*type, m_facts)) return;
    // Built from a 32-bit full mask declared before it (SpQR's HALF_MASK = FULL_MASK >> 16u): that
    // declaration is where the width is fixed too.
    std::optional<std::pair<std::string, int>> from;
    if (v.is(*j + 1, "=")) {
      const Span init = initializer(v, *j + 1);
      for (std::size_t q = init.begin; q < init.end && !from; ++q) {
        if (v.at(q).kind != TokenKind::identifier) continue;
        const auto r = declaration_before(v, *j, v.at(q).text);
        if (r && v.is(*r + 1, "=") && is_full_mask_32(v, initializer(v, *r + 1), m_facts))
          from = {{v.at(*r).text, v.at(*r).line}};
      }
    }
    // Reported at the declaration, once for every call it reaches (the fix is its type).
    Finding* x = m_sink.add(
        RuleId::wave64_full_mask, v.index(*j),
        fmt::format("`{}` is declared `{}`{}, and {} takes it as its mask (line {}): a 64-lane wavefront's lane "
                    "mask needs 64 bits; HIP 6.2+ rejects a 32-bit mask, and a full one built in 32 bits "
                    "leaves lanes 32-63 out.",
                    name, *type,
                    from ? fmt::format(" and built from the 32-bit full mask {} (line {})", from->first, from->second)
                         : std::string(),
                    v.at(call).text, v.at(call).line),
        "Declare the mask 64 bits wide (unsigned long long, or lane_mask_t on HIP), or drop it where every "
        "lane takes part.");
    if (x && from) x->also.push_back(from->second);
  }

  void ballot_width(const StreamView& v, std::size_t at) {
    const Token& t = v.at(at);
    wrapper_call(v, at);
    static const Names ballots = {"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"};
    // A cooperative-groups tile's ballot (tile.ballot(p), warp->ballot(p)) is the same 64-bit mask.
    const bool member = (t.text == "ballot" || t.text == "match_any") && at >= 2 &&
                        (v.is(at - 1, ".") || v.is(at - 1, "->")) && v.at(at - 2).kind == TokenKind::identifier;
    if (t.kind != TokenKind::identifier || !(ballots.count(t.text) || member) || !v.is(at + 1, "(")) return;
    const std::size_t k = member ? at - 2 : at;  // where the expression starts
    if (k == 0) return;
    static const Names narrow_bits = {"__popc", "__ffs", "__clz", "__brev", "__fns"};
    const std::string what = member ? v.at(k).text + v.at(at - 1).text + t.text + "()" : t.text + "()";
    if (v.is(k - 1, "(") && k >= 2 && narrow_bits.count(v.at(k - 2).text)) {
      m_sink.add(RuleId::wave64_ballot_width, v.index(k - 2),
                 fmt::format("{} takes the 32-bit form of {}: lanes 32-63 of the 64-bit mask are ignored.",
                             v.at(k - 2).text, what),
                 fmt::format("Use {}ll on the 64-bit mask.", v.at(k - 2).text));
      return;
    }
    // (unsigned)__ballot(...), static_cast<uint32_t>(__ballot(...))
    if (v.is(k - 1, ")")) {
      const std::size_t o = match_open(v, k - 1);
      if (o < v.size()) {
        const std::string type = span_text(v, {o + 1, k - 1});
        if (is_narrow_integer(type, m_facts))
          m_sink.add(RuleId::wave64_ballot_width, v.index(k),
                     fmt::format("{} is cast to {}: the upper 32 lanes of the 64-bit mask are lost.", what, type));
      }
      return;
    }
    if (v.is(k - 1, "(") && k >= 5 && v.is(k - 2, ">") && v.at(k - 5).text == "static_cast") {
      const std::string type = span_text(v, {k - 3, k - 2});
      if (is_narrow_integer(type, m_facts))
        m_sink.add(RuleId::wave64_ballot_width, v.index(k),
                   fmt::format("{} is cast to {}: the upper 32 lanes of the 64-bit mask are lost.", what, type));
      return;
    }
    // `x = (__ballot_sync(...))`: parentheses around the ballot change nothing.
    std::size_t e = k;
    while (e >= 2 && v.is(e - 1, "(") && v.at(e - 2).kind != TokenKind::identifier && !v.is(e - 2, ")")) --e;
    if (e >= 1 && v.is(e - 1, "return") && v.scope(k) >= 0) {
      const std::size_t body = v.range(v.scope(k)).begin;
      const auto fn = function_name(v, body);
      const auto type = return_type(v, body);
      if (fn && type && is_narrow_integer(*type, m_facts))
        if (Finding* x = m_sink.add(
                RuleId::wave64_ballot_width, v.index(k),
                fmt::format("{} is returned as `{}` by {}(): HIP returns a 64-bit mask and lanes 32-63 are lost "
                            "for every caller.",
                            what, *type, *fn),
                fmt::format("Return the mask as uint64_t (unsigned long long), and keep it in 64 bits where {}() "
                            "is called.",
                            *fn))) {
          // The declaration, where the fix goes, is its line too (raft's `DI uint32_t ballot(bool
          // inFlag, ...)` four lines above its return).
          if (const int line = v.at(function_name_at(v, body)).line; line != x->line) x->also.push_back(line);
        }
      return;
    }
    if (!v.is(e - 1, "=") || e < 2 || v.at(e - 2).kind != TokenKind::identifier) return;
    const std::size_t name_at = e - 2;
    const std::string& var = v.at(name_at).text;
    std::optional<std::string> type = declared_type(v, name_at);
    if (!type) {  // an assignment: find the variable's declaration earlier in the same scope
      for (std::size_t j = name_at; j-- > 0 && v.scope(j) == v.scope(k);)
        if (v.at(j).text == var && (v.is(j + 1, ";") || v.is(j + 1, "=") || v.is(j + 1, ",")))
          if ((type = declared_type(v, j))) break;
    }
    if (!type || !is_narrow_integer(*type, m_facts)) return;
    m_sink.add(RuleId::wave64_ballot_width, v.index(k),
               fmt::format("{} is stored in `{} {}`, 32 bits: HIP returns a 64-bit mask and lanes 32-63 are lost.",
                           what, *type, var));
    narrow_ballot_reads(v, k, var, t.line);
  }

  /// A call of the project's function that returns a ballot in 32 bits (cuDF's ballot()): each
  /// call site is where lanes 32-63 go missing; one finding a file, the calls its lines.
  void wrapper_call(const StreamView& v, std::size_t k) {
    const Token& t = v.at(k);
    if (t.kind != TokenKind::identifier || !v.is(k + 1, "(") || (k > 0 && (v.is(k - 1, ".") || v.is(k - 1, "->"))))
      return;
    const auto it = m_facts.ballot_wrappers.find(t.text);
    if (it == m_facts.ballot_wrappers.end() || declared_type(v, k)) return;  // its declaration
    const std::size_t close = match_close(v, k + 1);
    if (close + 1 < v.size() && v.is(close + 1, "{")) return;
    m_sink.add(RuleId::wave64_ballot_width, v.index(k),
               fmt::format("{}() ({}) returns the ballot in 32 bits: lanes 32-63 of the 64-bit mask are lost "
                           "where it is called.",
                           t.text, where(m_sink.project(), it->second)),
               fmt::format("Make {}() return uint64_t and keep its result in 64 bits (__ffsll, __popcll).", t.text));
  }

  /// After a ballot was kept in 32-bit `var` (line `line`): each __ffs(var ...), __popc(var ...)
  /// later in the function reads only lanes 0-31, and is where a 64-lane port changes the call.
  void narrow_ballot_reads(const StreamView& v, std::size_t from, const std::string& var, int line) {
    static const Names bit_reads = {"__popc", "__ffs", "__clz", "__brev", "__fns"};
    const int scope = v.scope(from);
    if (scope < 0) return;
    for (std::size_t j = from + 1; j + 2 < v.size() && v.scope(j) == scope; ++j) {
      if (v.at(j).text == var && v.is(j + 1, "=") && !v.is(j + 2, "=")) return;  // assigned anew
      if (!bit_reads.count(v.at(j).text) || !v.is(j + 1, "(") || v.at(j + 2).text != var) continue;
      m_sink.add(RuleId::wave64_ballot_width, v.index(j),
                 fmt::format("{}({}) reads the ballot kept in 32 bits on line {}: lanes 32-63 are not there.",
                             v.at(j).text, var, line),
                 fmt::format("Keep the ballot in 64 bits and use {}ll.", v.at(j).text));
    }
  }

private:
  Sink& m_sink;
  const ProjectFacts& m_facts;
};

/// Where `name` is the mask of a *_sync call a HIP build compiles, by file: "reduce_kernel_utils.cuh
/// lines 78, 110; normalize_kernels.cu line 131".
std::string mask_uses(const Project& p, const std::string& name) {
  std::map<std::size_t, std::set<int>> lines;
  for (std::size_t file = 0; file < p.files.size(); ++file) {
    const SourceFile& f = p.files[file];
    const auto& toks = f.lexed.tokens;
    for (std::size_t i = 2; i < toks.size(); ++i)
      if (toks[i].text == name && toks[i - 1].text == "(" && is_sync_intrinsic(toks[i - 2].text) &&
          !p.facts.shimmed_sync.count(toks[i - 2].text) && f.reach(i) != Reach::skipped)
        lines[file].insert(toks[i].line);
  }
  return lines_by_file(p, lines);
}

}  // namespace

void check_masks_at(Sink& sink, const StreamView& v, std::size_t k) {
  Masks masks(sink);
  masks.full_mask(v, k);
  masks.ballot_width(v, k);
}

void check_mask_names(Sink& sink) {
  // The project's names for a 32-bit full mask that *_sync calls receive, at their definition.
  const Project& p = sink.project();
  for (const auto& [name, def] : p.facts.full_masks) {
    if (&p.files[def.file] != &sink.file()) continue;
    const std::string uses = mask_uses(p, name);
    if (uses.empty()) continue;
    sink.add(RuleId::wave64_full_mask, def.token,
             fmt::format("{} is a 32-bit all-ones mask (lanes 0-31), passed to *_sync calls ({}); a 64-lane "
                         "wavefront has lanes 32-63 too: HIP 6.2+ rejects a 32-bit mask.",
                         name, uses),
             "Define it as 0xffffffffffffffffull (or __activemask()) for a 64-lane wavefront, or drop the mask with "
             "the non-sync forms where every lane takes part.");
  }
}

std::map<std::string, Place, std::less<>> ballot_wrappers(const Project& p) {
  std::map<std::string, Place, std::less<>> out;
  const auto is_ballot = [](const StreamView& v, std::size_t k) {
    return (v.is(k, "__ballot_sync") || v.is(k, "__ballot")) && v.is(k + 1, "(");
  };
  for (std::size_t fi = 0; fi < p.files.size(); ++fi) {
    const SourceFile& f = p.files[fi];
    const Stream& s = f.streams.front();  // the file's code
    const StreamView v{f, s};
    for (std::size_t b = 0; b < s.bodies.size(); ++b) {
      const Span body = v.range(static_cast<int>(b));
      const auto fn = function_name(v, body.begin);
      const auto type = return_type(v, body.begin);
      if (!fn || !type || !is_narrow_integer(*type, p.facts) || f.reach(v.index(body.begin)) == Reach::skipped)
        continue;
      for (std::size_t j = body.begin; j < body.end; ++j) {
        if (!v.is(j, "return") || f.reach(v.index(j)) == Reach::skipped) continue;
        Span e{j + 1, j + 1};
        while (e.end < body.end && !v.is(e.end, ";")) ++e.end;
        while (e.size() >= 2 && v.is(e.begin, "(") && match_close(v, e.begin) == e.end - 1) ++e.begin, --e.end;
        bool ballot = is_ballot(v, e.begin) && match_close(v, e.begin + 1) == e.end - 1;
        if (!ballot && e.size() == 1 && v.at(e.begin).kind == TokenKind::identifier)
          for (std::size_t q = body.begin; q + 2 < j && !ballot; ++q)
            ballot = v.at(q).text == v.at(e.begin).text && v.is(q + 1, "=") && is_ballot(v, q + 2);
        if (ballot) {
          out.emplace(*fn, Place{fi, v.index(body.begin)});
          break;
        }
      }
    }
  }
  return out;
}

}  // namespace dcukit::port
