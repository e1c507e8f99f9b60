// wave64.warp-size-literal for CUB's warp-transpose loads and stores: a block size under 64, or
// no multiple of it, given to a BlockLoad or BlockStore whose algorithm is a warp transpose, which
// rocPRIM (under hipCUB) refuses to compile, directly or through templates that pass the size on
// (mamba's selective_scan_fwd_launch<32, 4, ...> reaching its traits' kNThreads).
#include <fmt/format.h>

#include <string>
#include <tuple>
#include <vector>

#include "port/check.h"
#include "port/pp_expr.h"
#include "port/project.h"
#include "port/syntax.h"

namespace dcukit::port {
namespace {

/// The arguments of the template argument list whose "<" is at `open`, split at its top-level
/// commas; empty where the list does not close on the line's statement.
std::vector<Span> template_args(const StreamView& v, std::size_t open) {
  std::vector<Span> out;
  int angle = 0, paren = 0;
  std::size_t from = open + 1;
  for (std::size_t j = open; j < v.size() && !v.is(j, ";") && !v.is(j, "{"); ++j) {
    if (v.is(j, "(") || v.is(j, "[")) ++paren;
    if (v.is(j, ")") || v.is(j, "]")) --paren;
    if (paren > 0) continue;
    if (v.is(j, "<")) ++angle;
    const int closes = v.is(j, ">") ? 1 : v.is(j, ">>") ? 2 : 0;
    if (angle == 1 && (v.is(j, ",") || closes > 0)) {
      out.push_back({from, j});
      from = j + 1;
    }
    angle -= closes;
    if (angle <= 0 && closes > 0) return out;
  }
  return {};
}

}  // namespace

TransposeBlocks transpose_blocks(const Project& p) {
  TransposeBlocks out;
  struct Template {
    std::string name;
    std::vector<std::string> params;
    std::size_t file = 0;
    Span span;  ///< from `template` to the end of its body
  };
  std::vector<Template> templates;
  std::vector<std::tuple<std::size_t, std::size_t, std::string>> uses;  // file, position, size name
  for (std::size_t fi = 0; fi < p.files.size(); ++fi) {
    const SourceFile& f = p.files[fi];
    const StreamView v{f, f.streams.front()};
    for (std::size_t k = 0; k + 1 < v.size(); ++k) {
      if (f.reach(v.index(k)) == Reach::skipped || !v.is(k + 1, "<")) continue;
      if (v.is(k, "template")) {
        const auto params = template_args(v, k + 1);
        if (params.empty()) continue;
        Template t{{}, {}, fi, {k, k}};
        for (const Span& s : params)
          for (std::size_t j = s.end; j-- > s.begin;)
            if (v.at(j).kind == TokenKind::identifier && !v.is(j + 1, "=") && !v.is(j + 1, "::")) {
              t.params.push_back(v.at(j).text);
              break;
            }
        int depth = 0;
        for (std::size_t j = params.back().end + 1; j < v.size() && depth >= 0; ++j) {
          if (v.is(j, "(")) ++depth;
          if (v.is(j, ")")) --depth;
          if (depth > 0) continue;
          if (v.is(j, ";")) break;
          if (t.name.empty() && v.at(j).kind == TokenKind::identifier &&
              (v.is(j + 1, "(") || v.is(j - 1, "struct") || v.is(j - 1, "class")) &&
              v.at(j).text != "__launch_bounds__")
            t.name = v.at(j).text;
          if (v.is(j, "{")) {
            t.span.end = match_close(v, j);
            break;
          }
        }
        if (!t.name.empty() && t.span.end > t.span.begin) templates.push_back(std::move(t));
        continue;
      }
      if (!v.is(k, "BlockLoad") && !v.is(k, "BlockStore")) continue;
      const auto args = template_args(v, k + 1);
      if (args.size() < 4) continue;
      bool transpose = false;
      for (std::size_t j = args[3].begin; j < args[3].end; ++j)
        transpose = transpose || v.at(j).text.find("WARP_TRANSPOSE") != std::string::npos;
      if (!transpose || args[1].size() != 1) continue;
      const Token& size = v.at(args[1].begin);
      if (size.kind == TokenKind::identifier) uses.emplace_back(fi, k, size.text);
      if (const auto n = size.kind == TokenKind::number ? parse_integer(size.text) : std::nullopt; n && *n % 64)
        out.literals.emplace_back(Place{fi, v.index(args[1].begin)}, *n);
    }
  }
  // A template whose load or store takes its size from a parameter (a traits struct's
  // kNThreads_ through its kNThreads), then templates that pass a parameter on to one.
  for (const Template& t : templates)
    for (const auto& [fi, k, name] : uses)
      if (fi == t.file && k > t.span.begin && k < t.span.end)
        for (std::size_t i = 0; i < t.params.size(); ++i)
          if (t.params[i] == name || t.params[i] == name + "_")
            out.templates.emplace(t.name,
                                  std::make_tuple(i, t.params[i], Place{fi, p.files[fi].streams.front().tokens[k]}));
  for (bool grew = true; grew;) {
    grew = false;
    for (const Template& t : templates) {
      if (out.templates.count(t.name)) continue;
      const SourceFile& f = p.files[t.file];
      const StreamView v{f, f.streams.front()};
      for (std::size_t k = t.span.begin + 1; k + 1 < t.span.end && !out.templates.count(t.name); ++k) {
        const auto it = out.templates.find(v.at(k).text);
        if (it == out.templates.end() || !v.is(k + 1, "<")) continue;
        const auto args = template_args(v, k + 1);
        const std::size_t j = std::get<0>(it->second);
        if (j >= args.size() || args[j].size() != 1) continue;
        for (std::size_t i = 0; i < t.params.size(); ++i)
          if (t.params[i] == v.at(args[j].begin).text) {
            out.templates.emplace(t.name, std::make_tuple(i, t.params[i], std::get<2>(it->second)));
            grew = true;
            break;
          }
      }
    }
  }
  return out;
}

namespace {

/// A literal block size rocPRIM refuses given to a warp-transpose load or store, directly or
/// through a template that passes it on (mamba's selective_scan_fwd_launch<32, 4, ...>).
void transpose_block_sizes(Sink& sink, const TransposeBlocks& blocks) {
  if (blocks.templates.empty() && blocks.literals.empty()) return;
  const Project& p = sink.project();
  const std::string why =
      " rocPRIM, under hipCUB, compiles a warp-transpose load or store only for a block that is a multiple of the "
      "64-lane wavefront (\"BlockSize must be a multiple of hardware warpsize\").";
  const std::string fix =
      "Use 64 threads or a multiple of them on HIP, or BLOCK_LOAD_DIRECT / BLOCK_LOAD_TRANSPOSE (and the "
      "store's), which take any block size.";
  for (const auto& [place, n] : blocks.literals)
    if (&p.files[place.file] == &sink.file())
      sink.add(RuleId::wave64_warp_size_literal, place.token,
               fmt::format("A CUB load or store with a warp-transpose algorithm gets a block of {} threads.{}", n, why),
               fix);
  const StreamView v{sink.file(), sink.file().streams.front()};
  for (std::size_t k = 1; k + 1 < v.size(); ++k) {
    const auto it = blocks.templates.find(v.at(k).text);
    if (it == blocks.templates.end() || !v.is(k + 1, "<") || v.is(k - 1, "struct") || v.is(k - 1, "class") ||
        sink.file().reach(v.index(k)) == Reach::skipped)
      continue;
    const auto& [index, param, use] = it->second;
    const auto args = template_args(v, k + 1);
    if (index >= args.size() || args[index].size() != 1 || v.at(args[index].begin).kind != TokenKind::number) continue;
    const auto n = parse_integer(v.at(args[index].begin).text);
    if (!n || *n % 64 == 0) continue;
    sink.add(RuleId::wave64_warp_size_literal, v.index(args[index].begin),
             fmt::format("{}<...> sets {} to {}: the block size of a CUB load or store with a warp-transpose "
                         "algorithm ({}).{}",
                         it->first, param, *n, where(p, use), why),
             fix);
  }
}

}  // namespace

void check_transpose_blocks(Sink& sink) { transpose_block_sizes(sink, sink.project().facts.transpose_blocks); }

}  // namespace dcukit::port
