// wave64.warp-size-literal on the host side of a launch: a block of "one warp" of 32 threads for a
// kernel that shuffles, votes or reads warpSize (cuda-samples' simpleHyperQ: sum<<<1, 32>>>),
// and 32 passed to a kernel parameter that reaches a shuffle (shfl_scan: a width of 32). CUB's
// warp-transpose block sizes are check_transpose.cpp's.
#include <fmt/format.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "port/check.h"
#include "port/project.h"
#include "port/syntax.h"

namespace dcukit::port {
namespace {

/// What a kernel of the project does with warps: whether its body shuffles, votes or reads
/// warpSize, and which of its parameters it passes to a shuffle (a width, a lane).
struct WarpKernel {
  bool warp_sync = false;
  std::set<std::size_t> shuffle_params;
};

/// The last identifier of each parameter of the function whose body opens at k.
std::vector<std::string> parameter_names(const StreamView& v, std::size_t k) {
  std::vector<std::string> out;
  std::size_t close = k;
  while (close > 0 && !v.is(close - 1, ")")) --close;
  if (close == 0) return out;
  for (const Span& p : call_args(v, match_open(v, close - 1)))
    for (std::size_t j = p.end; j-- > p.begin;)
      if (v.at(j).kind == TokenKind::identifier && !v.is(j + 1, "=")) {
        out.push_back(v.at(j).text);
        break;
      }
  return out;
}

/// The kernels one file's launches name, each read once from the project.
class Kernels {
public:
  explicit Kernels(const Project& p) : m_project(p) {}

  const WarpKernel& get(const std::string& name) {
    if (auto it = m_known.find(name); it != m_known.end()) return it->second;
    WarpKernel out;
    for (const SourceFile& f : m_project.files)
      for (const Stream& s : f.streams) {
        const StreamView v{f, s};
        for (std::size_t k = 0; k < v.size() && !out.warp_sync; ++k) {
          if (!v.is(k, "{") || v.scope(k) < 0 || (k > 0 && v.scope(k - 1) == v.scope(k))) continue;
          const auto fn = function_name(v, k);
          if (!fn || *fn != name) continue;
          const auto params = parameter_names(v, k);
          for (std::size_t j = k; j < v.size() && v.scope(j) == v.scope(k); ++j) {
            const std::string& t = v.at(j).text;
            if (t == "warpSize" || is_shuffle(t) || is_sync_intrinsic(t)) out.warp_sync = true;
            if (!is_shuffle(t) || !v.is(j + 1, "(")) continue;
            for (const Span& arg : call_args(v, j + 1))
              for (std::size_t i = 0; i < params.size(); ++i)
                if (arg.size() == 1 && v.at(arg.begin).text == params[i]) out.shuffle_params.insert(i);
          }
        }
      }
    return m_known[name] = out;
  }

private:
  const Project& m_project;
  std::map<std::string, WarpKernel> m_known;
};

/// name<<<...>>>(a, 32, b) where the kernel passes that parameter to a shuffle.
void width_argument(Sink& sink, Kernels& kernels, const StreamView& v, std::size_t launch_end,
                    const std::string& kernel) {
  if (!v.is(launch_end + 1, "(")) return;
  const auto args = call_args(v, launch_end + 1);
  const WarpKernel& w = kernels.get(kernel);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].size() == 1 && is_literal(v.at(args[i].begin), 32) && w.shuffle_params.count(i))
      sink.add(RuleId::wave64_warp_size_literal, v.index(args[i].begin),
               fmt::format("{} gets 32 as argument {}, which it passes to a shuffle: a width of 32 splits a "
                           "64-lane wavefront into halves that never exchange.",
                           kernel, i + 1),
               "Pass warpSize (the device's, from hipDeviceProp_t on the host), or a width the kernel derives.");
}

/// name<<<grid, 32>>>(...) of a warp-synchronous kernel, and its arguments.
void launch(Sink& sink, Kernels& kernels, const StreamView& v, std::size_t k) {
  if (!v.is(k, "<<<") || k == 0 || v.at(k - 1).kind != TokenKind::identifier) return;
  std::size_t comma = 0;
  int depth = 0;
  for (std::size_t j = k + 1; j < v.size() && !v.is(j, ">>>") && !v.is(j, ";"); ++j) {
    if (v.is(j, "(") || v.is(j, "[") || v.is(j, "{")) ++depth;
    if (v.is(j, ")") || v.is(j, "]") || v.is(j, "}")) --depth;
    if (depth == 0 && v.is(j, ",")) {
      comma = j;
      break;
    }
  }
  if (comma == 0 || comma + 2 >= v.size()) return;
  const std::string& kernel = v.at(k - 1).text;
  std::size_t end = comma;
  while (end < v.size() && !v.is(end, ">>>") && !v.is(end, ";")) ++end;
  if (end < v.size() && v.is(end, ">>>")) width_argument(sink, kernels, v, end, kernel);
  if (!is_literal(v.at(comma + 1), 32) || (!v.is(comma + 2, ">>>") && !v.is(comma + 2, ","))) return;
  if (!kernels.get(kernel).warp_sync) return;
  sink.add(RuleId::wave64_warp_size_literal, v.index(comma + 1),
           fmt::format("{} is launched with blocks of 32 threads, one 32-lane warp; on a 64-lane wavefront that is "
                       "half a wave, and {} shuffles, votes or reads warpSize as if its block were a warp.",
                       kernel, kernel),
           "Launch with the device's warp size (hipDeviceProp_t::warpSize) where the kernel wants one warp.");
}

}  // namespace

void check_launches(Sink& sink) {
  const SourceFile& f = sink.file();
  Kernels kernels(sink.project());
  for (const Stream& s : f.streams) {
    const StreamView v{f, s};
    for (std::size_t k = 0; k < v.size(); ++k)
      if (v.is(k, "<<<") && f.reach(v.index(k)) != Reach::skipped) launch(sink, kernels, v, k);
  }
}

}  // namespace dcukit::port
