// The wave64.* rules: code that assumes 32-lane warps where DCU and AMD GPUs run 64 lanes.
//
// What counts as a hazard (docs/port.md has the reasoning): a literal 32 on a thread index, a
// reduction from offset 16 that shuffles across the whole wavefront, a literal shuffle width of
// 32, a warp-size constant fixed at 32 that is never passed as a shuffle width (32-bit lane masks
// and ballots are check_masks.cpp's). A named 32-lane width that every shuffle receives (ggml's WARP_SIZE) is a logical
// warp and is left alone, as are *_sync masks a vendor macro drops before HIP sees them.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "port/check.h"
#include "port/pp_expr.h"
#include "port/syntax.h"
#include "port/warp_sync.h"

namespace dcukit::port {
namespace {

using Names = std::set<std::string, std::less<>>;

class Wave64 {
public:
  explicit Wave64(Sink& sink) : m_sink(sink), m_facts(sink.project().facts), m_file(sink.file()) {}

  void run() {
    for (const Stream& s : m_file.streams) {
      const StreamView v{m_file, s};
      m_threads.clear();
      m_lanes.clear();
      m_hardware.clear();
      m_hw_line.clear();
      m_sync_scopes = warp_synchronous_scopes(v, m_facts);
      for (bool local : {false, true})
        for (std::size_t k = 0; k < v.size(); ++k)
          if (m_file.reach(v.index(k)) != Reach::skipped) note_hardware(v, k, local);
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (m_file.reach(v.index(k)) == Reach::skipped) continue;
        check_masks_at(m_sink, v, k);
        literal_arithmetic(v, k);
        reduction_from_16(v, k);
        shuffle_width(v, k);
        warp_constant(v, k);
        per_warp_shared(v, k);
        lane_bit(v, k);
        tile_of_32(v, k);
      }
    }
  }

private:
  const Names& threads(const StreamView& v, int scope) {
    auto it = m_threads.find(scope);
    if (it == m_threads.end()) it = m_threads.emplace(scope, thread_index_names(v, scope)).first;
    return it->second;
  }

  /// Lane indices of a scope: names initialised with `% W` or `& (W-1)` of a thread index.
  const Names& lanes(const StreamView& v, int scope) {
    auto it = m_lanes.find(scope);
    if (it != m_lanes.end()) return it->second;
    Names out;
    const Names& th = threads(v, scope);
    const Span r = v.range(scope);
    for (std::size_t k = std::max<std::size_t>(1, r.begin); k < r.end && k + 1 < v.size(); ++k) {
      if (v.scope(k) != scope || !v.is(k, "=") || v.at(k - 1).kind != TokenKind::identifier) continue;
      for (std::size_t j = k + 1; j < v.size() && !v.is(j, ";") && !v.is(j, ","); ++j)
        if ((v.is(j, "%") || v.is(j, "&")) && j > 0 && thread_index_operand_before(v, j - 1, th)) {
          out.insert(v.at(k - 1).text);
          break;
        }
    }
    return m_lanes.emplace(scope, std::move(out)).first->second;
  }

  /// Names standing for the hardware width in one scope: the project's, and locals made from them
  /// (`constexpr int warp_size = ggml_cuda_get_physical_warp_size();`).
  const Names& hardware(const StreamView& v, int scope) {
    auto it = m_hardware.find(scope);
    if (it != m_hardware.end()) return it->second;
    Names local;
    const Span r = v.range(scope);
    for (bool grew = true; grew;) {
      grew = false;
      for (std::size_t k = std::max<std::size_t>(1, r.begin); k < r.end && k + 1 < v.size(); ++k) {
        if (v.scope(k) != scope || !v.is(k, "=") || v.at(k - 1).kind != TokenKind::identifier) continue;
        if (local.count(v.at(k - 1).text) || m_file.reach(v.index(k)) == Reach::skipped) continue;
        for (std::size_t j = k + 1; j < v.size() && !v.is(j, ";") && !v.is(j, ","); ++j)
          if (m_facts.hardware_width.count(v.at(j).text) || local.count(v.at(j).text)) {
            local.insert(v.at(k - 1).text);
            grew = true;
            break;
          }
      }
    }
    return m_hardware.emplace(scope, std::move(local)).first->second;
  }

  /// Remembers the first use of the hardware width in k's scope: the project's names (warpSize)
  /// first, then locals made from them.
  void note_hardware(const StreamView& v, std::size_t k, bool local) {
    const Token& t = v.at(k);
    if (t.kind != TokenKind::identifier || m_hw_line.count(v.scope(k))) return;
    if (local ? hardware(v, v.scope(k)).count(t.text) > 0 : m_facts.hardware_width.count(t.text) > 0)
      m_hw_line[v.scope(k)] = {t.line, t.text};
  }

  /// " This code also uses warpSize (line 47): ..." when the scope mixes both widths.
  std::string mixed(const StreamView& v, std::size_t k) const {
    if (v.scope(k) == -1) return {};  // declarations at file scope are not code that runs
    auto it = m_hw_line.find(v.scope(k));
    if (it == m_hw_line.end()) return {};
    return fmt::format(
        " The same code also uses the hardware width ({}, line {}), so on a 64-lane wavefront the "
        "two disagree.",
        it->second.second, it->second.first);
  }

  /// A name that holds the threads of a block: threads, blockSize, threads_per_block, nThreads...
  static bool is_block_size_name(const Token& t) {
    if (t.kind != TokenKind::identifier) return false;
    std::string n;
    for (const char c : t.text)
      if (c != '_') n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const Names names = {"threads",          "nthreads",  "numthreads", "threadsperblock", "nthreadsperblock",
                                "blocksize",        "blockdimx", "numthreadsperblock", "threadcount"};
    return names.count(n) > 0;
  }

  /// tid % 32, tid & 31, tid / 32, tid >> 5 (and the same with a warp-size constant fixed at 32).
  void literal_arithmetic(const StreamView& v, std::size_t k) {
    const Token& op = v.at(k);
    if (op.kind != TokenKind::punct || k == 0 || k + 1 >= v.size()) return;
    const Token& rhs = v.at(k + 1);
    const bool literal = (op.text == "%" && is_literal(rhs, 32)) || (op.text == "/" && is_literal(rhs, 32)) ||
                         (op.text == "&" && is_literal(rhs, 31)) || (op.text == ">>" && is_literal(rhs, 5));
    if (!literal) return;
    if (k + 2 < v.size() && (v.is(k + 2, ".") || v.is(k + 2, "("))) return;
    if (op.text != ">>" && is_block_size_name(v.at(k - 1))) {
      // A block's warps counted in 32 lanes (cuda-samples: smemSize = (threads / 32 + 1) * sizeof(T);
      // reduce7's partial last warp, maskLength = blockSize & 31).
      const bool count = op.text == "/";
      m_sink.add(RuleId::wave64_warp_size_literal, v.index(k + 1),
                 fmt::format("`{} {} {}` {} in 32-lane warps; a DCU wavefront has 64 lanes, so per-warp buffers and "
                             "masks built from it and code that uses warpSize disagree.",
                             v.at(k - 1).text, op.text, rhs.text,
                             count ? "counts a block's warps" : "finds the threads past a block's last full warp"),
                 "Use the device's warp size (hipDeviceProp_t::warpSize on the host, warpSize in a kernel).");
      return;
    }
    if (!thread_index_operand_before(v, k - 1, threads(v, v.scope(k)))) return;
    // A lane or warp number in a function with no shuffle, vote or lane mask, and no use of the
    // hardware width to disagree with (ggml's ssm-scan: tid / 32 beside warpSize), only splits
    // work (bitsandbytes' kspmm_coo: warp_id = threadIdx.x / 32 picks columns): right at any width.
    if (v.stream.define < 0 && v.scope(k) >= 0 && !m_sync_scopes.count(v.scope(k)) && !m_hw_line.count(v.scope(k)))
      return;
    std::string lhs = v.at(k - 1).text;
    if (lhs == ")") lhs = "(...)";
    if (k >= 3 && v.is(k - 2, ".") && v.at(k - 3).text == "threadIdx") lhs = "threadIdx." + lhs;
    const std::string expr = fmt::format("{} {} {}", lhs, op.text, rhs.text);
    const bool lane = op.text == "%" || op.text == "&";
    m_sink.add(RuleId::wave64_warp_size_literal, v.index(k + 1),
               fmt::format("`{}` computes a {} index for 32-lane warps; a DCU wavefront has 64 lanes (warpSize), so "
                           "{} and the hardware's lanes disagree.{}",
                           expr, lane ? "lane" : "warp", lane ? "lanes 32-63 alias lanes 0-31" : "warp numbers double",
                           mixed(v, k)));
  }

  /// for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(m, v, o);  (no width: the whole wavefront)
  void reduction_from_16(const StreamView& v, std::size_t k) {
    if (!v.is(k, "for") || !v.is(k + 1, "(")) return;
    const std::size_t close = match_close(v, k + 1);
    if (close >= v.size()) return;
    std::size_t sixteen = v.size();
    std::string var;
    for (std::size_t j = k + 2; j + 2 < close && !v.is(j, ";"); ++j)
      if (v.at(j).kind == TokenKind::identifier && v.is(j + 1, "=") && is_literal(v.at(j + 2), 16)) {
        var = v.at(j).text;
        sixteen = j + 2;
        break;
      }
    if (var.empty()) return;
    std::size_t end = close + 1;
    if (v.is(end, "{"))
      end = match_close(v, end);
    else
      while (end < v.size() && !v.is(end, ";")) ++end;
    for (std::size_t j = close + 1; j < end && j < v.size(); ++j) {
      if (!is_shuffle(v.at(j).text) || !v.is(j + 1, "(")) continue;
      const auto args = call_args(v, j + 1);
      const bool sync = is_sync_intrinsic(v.at(j).text);
      const std::size_t offset_arg = sync ? 2 : 1;
      if (args.size() <= offset_arg || args[offset_arg].size() != 1 || v.at(args[offset_arg].begin).text != var)
        continue;
      if (args.size() > offset_arg + 1) return;  // an explicit width: see shuffle_width()
      m_sink.add(RuleId::wave64_warp_size_literal, v.index(sixteen),
                 fmt::format("A reduction starting at offset 16 with {} over the whole wavefront (no width): on 64 "
                             "lanes it reduces each half separately, lane 0 ends with the sum of lanes 0-31 only.{}",
                             v.at(j).text, mixed(v, k)),
                 "Start at warpSize / 2 (and read the result from lane 0 of each wavefront), or pass an explicit "
                 "logical width to the shuffle if 32-lane groups are meant.");
      return;
    }
  }

  /// A literal 32 as a shuffle's width.
  void shuffle_width(const StreamView& v, std::size_t k) {
    if (!is_shuffle(v.at(k).text) || !v.is(k + 1, "(")) return;
    const auto args = call_args(v, k + 1);
    const std::size_t want = is_sync_intrinsic(v.at(k).text) ? 4 : 3;
    if (args.size() != want || args.back().size() != 1 || !is_literal(v.at(args.back().begin), 32)) return;
    m_sink.add_with(RuleId::wave64_warp_size_literal, Severity::warning, v.index(args.back().begin),
                    fmt::format("{} with width 32 splits a 64-lane wavefront into two independent halves: right only "
                                "if every lane and warp index in this kernel also counts 32-lane warps.{}",
                                v.at(k).text, mixed(v, k)),
                    "Name the logical width (a WARP_SIZE passed to every shuffle) or use warpSize for the hardware's.");
  }

  /// `1 << lane` with a hardware lane index (up to 63): an int shifted by 32 or more is undefined.
  void lane_bit(const StreamView& v, std::size_t k) {
    if (!v.is(k, "<<") || k == 0 || k + 1 >= v.size()) return;
    const Token& one = v.at(k - 1);
    if (!is_literal(one, 1) || !is_32_bit_literal(one)) return;
    const int scope = v.scope(k);
    const Token& rhs = v.at(k + 1);
    const bool hw_lane = (rhs.text == "__lane_id" && v.is(k + 2, "(")) ||
                         (lanes(v, scope).count(rhs.text) && m_hw_line.count(scope) &&
                          initialised_from_hardware(v, k, rhs.text));
    if (!hw_lane) return;
    m_sink.add(RuleId::wave64_ballot_width, v.index(k - 1),
               fmt::format("`{} << {}` builds a lane bit in 32 bits, but {} runs to 63 on a 64-lane wavefront: "
                           "shifting an int by 32 or more is undefined and lanes 32-63 get no bit.",
                           one.text, rhs.text, rhs.text),
               "Build lane bits in 64 bits (1ull << lane) and keep the masks in unsigned long long.");
  }

  /// Whether the nearest assignment of `name` before k in k's scope mentions the hardware width.
  bool initialised_from_hardware(const StreamView& v, std::size_t k, const std::string& name) {
    const auto init = local_value(v, k, name);
    if (!init) return false;
    for (std::size_t q = init->begin; q < init->end; ++q)
      if (m_facts.hardware_width.count(v.at(q).text) || hardware(v, v.scope(k)).count(v.at(q).text) ||
          v.at(q).text == "__lane_id")
        return true;
    return false;
  }

  /// tiled_partition<32> / thread_block_tile<32> in code that also uses the hardware width: a tile
  /// is half a 64-lane wavefront, so anything indexed by warpSize counts other groups than the tiles.
  void tile_of_32(const StreamView& v, std::size_t k) {
    const Token& t = v.at(k);
    if (t.kind != TokenKind::identifier || (t.text != "tiled_partition" && t.text != "thread_block_tile")) return;
    if (!v.is(k + 1, "<") || k + 3 >= v.size() || !is_literal(v.at(k + 2), 32) || !v.is(k + 3, ">")) return;
    const std::string also = mixed(v, k);
    if (also.empty()) return;
    m_sink.add_with(RuleId::wave64_warp_size_literal, Severity::warning, v.index(k + 2),
                    fmt::format("{}<32> makes 32-thread tiles, half of a 64-lane wavefront.{} Lane and group "
                                "numbers taken from warpSize count 64-lane groups, the tile's count 32.",
                                t.text, also),
                    "Use one width: tiles of warpSize lanes (tiled_partition(block, warpSize) is dynamic on HIP), "
                    "or 32 everywhere, named, for a logical warp.");
  }

  /// A warp-size constant fixed at 32 that is never a shuffle width, where warp-synchronous code
  /// uses it (a constant that only splits work is right at any width). One finding for the
  /// constant: at its definition, with its uses as lines where they are in the same file and
  /// named in the text where they are in others (check_wave64 below); a file whose constant is
  /// defined outside the files audited gets one finding with its own uses.
  void warp_constant(const StreamView& v, std::size_t k) {
    const Token& t = v.at(k);
    if (t.kind != TokenKind::identifier) return;
    auto it = m_facts.warp32.find(t.text);
    if (it == m_facts.warp32.end() || it->second.used_as_width || !it->second.lane_exact) return;
    const std::size_t fi = static_cast<std::size_t>(&m_file - m_sink.project().files.data());
    if (!it->second.sync_uses.count({fi, v.index(k)})) return;
    const Place& def = it->second.where;
    if (def.file != fi) return;  // the definition's finding, in its own file, names this use
    if (Finding* f = m_sink.add(RuleId::wave64_warp_size_literal, v.index(k),
                                fmt::format("{} is fixed at 32 ({}) and used as the warp size by warp-synchronous "
                                            "code (shuffles, votes or lane masks); a DCU wavefront has 64 lanes.{}",
                                            t.text, where(m_sink.project(), def), mixed(v, k))))
      f->same = "warp-constant " + t.text;
  }

  /// __shared__ T a[32] / a[N / 32], read with a hardware lane index in code that uses warpSize.
  void per_warp_shared(const StreamView& v, std::size_t k) {
    if (!v.is(k, "__shared__")) return;
    std::size_t name = k + 1;
    while (name < v.size() && !v.is(name, ";") && !(v.at(name).kind == TokenKind::identifier && v.is(name + 1, "[")))
      ++name;
    if (name >= v.size() || v.is(name, ";")) return;
    const std::size_t open = name + 1, close = match_close(v, open);
    if (close >= v.size()) return;
    const Span dim{open + 1, close};
    const bool by32 = (dim.size() == 1 && is_literal(v.at(dim.begin), 32)) ||
                      (dim.size() >= 3 && v.is(close - 2, "/") && is_literal(v.at(close - 1), 32)) ||
                      (dim.size() >= 3 && v.is(close - 2, ">>") && is_literal(v.at(close - 1), 5));
    if (!by32 || !m_hw_line.count(v.scope(k))) return;
    const std::string& array = v.at(name).text;
    const Names& lane_names = lanes(v, v.scope(k));
    for (std::size_t j = close; j + 2 < v.size() && v.scope(j) == v.scope(k); ++j) {
      if (v.at(j).text != array || !v.is(j + 1, "[")) continue;
      const std::size_t sc = match_close(v, j + 1);
      bool lane_indexed = false;
      for (std::size_t q = j + 2; q < sc && q < v.size(); ++q)
        if (lane_names.count(v.at(q).text) || v.at(q).text == "__lane_id" ||
            ((v.is(q, "%") || v.is(q, "&")) && thread_index_operand_before(v, q - 1, threads(v, v.scope(k)))))
          lane_indexed = true;
      // `partial[tid]` under `tid < 32`: one slot a warp, read as if a block had 32 of them.
      const bool by_thread = !lane_indexed && sc > j + 2 && thread_index_operand_before(v, sc - 1, threads(v, v.scope(k))) &&
                             (sc == j + 3 || (sc == j + 5 && v.is(j + 2, "threadIdx"))) && !guarded_by_warp_count(v, j);
      if (!lane_indexed && !by_thread) continue;
      // A lane's read under `threadIdx.x < blockDim.x / warpSize` (tiny-cuda-nn's reduce_sum):
      // at most one slot a wavefront, which [32] holds.
      if (lane_indexed && guarded_by_warp_count(v, j)) continue;
      m_sink.add(RuleId::wave64_per_warp_shared, v.index(dim.end - 1),
                 fmt::format("`{}[{}]` is sized for 32-lane warps but read by {} (line {}) in code that uses the "
                             "hardware width: with 64 lanes {}.{}",
                             array, span_text(v, dim), lane_indexed ? "lane index" : "thread index", v.at(j).line,
                             lane_indexed ? "the index runs past the array or reads slots no warp wrote"
                                          : "a block has half as many wavefronts, and the slots past blockDim.x / 64 "
                                            "were never written",
                             mixed(v, k)));
      return;
    }
  }

  /// Whether a read at j sits under a bound on the number of warps (`tid < blockDim.x / warpSize`).
  bool guarded_by_warp_count(const StreamView& v, std::size_t j) const {
    const std::size_t from = j > 48 ? j - 48 : 0;
    for (std::size_t q = from; q < j; ++q) {
      if (!v.is(q, "<")) continue;
      for (std::size_t e = q + 1; e < j && e < q + 8; ++e)
        if (v.at(e).text == "blockDim" || m_facts.hardware_width.count(v.at(e).text)) return true;
    }
    return false;
  }

  Sink& m_sink;
  const ProjectFacts& m_facts;
  const SourceFile& m_file;
  std::map<int, Names> m_threads, m_lanes, m_hardware;
  std::map<int, std::pair<int, std::string>> m_hw_line;
  std::set<int> m_sync_scopes;  ///< scopes of the stream that hold warp-synchronous code
};

}  // namespace

void check_wave64(Sink& sink) {
  Wave64(sink).run();
  check_mask_names(sink);
  const Project& p = sink.project();
  // Warp-size constants fixed at 32 that warp-synchronous code uses, reported at their definition
  // (with the file's uses as its lines).
  for (const auto& [name, c] : p.facts.warp32) {
    // Only width-less shfl_down/xor trees beside it: each 32-lane half of a wavefront reduces on
    // its own, a logical warp that is right as written (widening it is a design choice).
    if (c.used_as_width || c.sync_uses.empty() || !c.lane_exact || &p.files[c.where.file] != &sink.file()) continue;
    std::map<std::size_t, std::set<int>> by_file;
    for (const auto& [file, token] : c.sync_uses) by_file[file].insert(p.files[file].lexed.tokens[token].line);
    const std::string uses = lines_by_file(p, by_file);
    if (Finding* f = sink.add(
            RuleId::wave64_warp_size_literal, c.where.token,
            fmt::format("{} fixes the warp size at 32, no shuffle receives it as its width, and warp-synchronous code "
                        "uses it ({} {}: {}): it stands for the hardware warp, and a DCU wavefront has 64 lanes.",
                        name, c.sync_uses.size(), c.sync_uses.size() == 1 ? "use" : "uses", uses),
            "Define it from the hardware (warpSize, or __AMDGCN_WAVEFRONT_SIZE under __HIP_PLATFORM_AMD__), or pass "
            "it as the width of every shuffle if 32-lane logical warps are meant."))
      f->same = "warp-constant " + name;
  }
}

}  // namespace dcukit::port
