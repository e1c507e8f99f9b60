#pragma once
// Small pieces of C++ syntax the rules need over a token stream: matching brackets, call
// arguments, statement bounds, declarations, thread-index variables and lane masks.
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "port/source.h"

namespace dcukit::port {

struct ProjectFacts;

/// A half-open range of stream positions.
struct Span {
  std::size_t begin = 0, end = 0;
  bool empty() const { return begin >= end; }
  std::size_t size() const { return end - begin; }
};

/// A view of one stream: positions are indices into stream.tokens.
struct StreamView {
  const SourceFile& file;
  const Stream& stream;

  std::size_t size() const { return stream.tokens.size(); }
  const Token& at(std::size_t k) const { return file.tok(stream.tokens[k]); }
  std::size_t index(std::size_t k) const { return stream.tokens[k]; }
  bool is(std::size_t k, std::string_view s) const {
    return k < size() && at(k).kind != TokenKind::string && at(k).text == s;
  }
  int scope(std::size_t k) const { return stream.scope[k]; }
  /// The positions a scope can hold: a function body's own range; file scope and a #define's
  /// body, the whole stream.
  Span range(int scope) const {
    if (scope >= 0 && static_cast<std::size_t>(scope) < stream.bodies.size())
      return {stream.bodies[scope].first, stream.bodies[scope].second};
    return {0, size()};
  }
};

/// The position of the bracket closing the one at k ("(", "[", "{"), or size() if unbalanced.
std::size_t match_close(const StreamView& v, std::size_t k);
/// The position of the bracket opening the one at k (")", "]", "}"), or size() if none.
std::size_t match_open(const StreamView& v, std::size_t k);

/// The arguments of a call whose "(" is at k: spans split at top-level commas.
std::vector<Span> call_args(const StreamView& v, std::size_t open);

/// Where the statement containing k starts (after the previous ';', '{' or '}').
std::size_t statement_start(const StreamView& v, std::size_t k);

/// The initializer after the "=" at k: up to the ';' or ',' at its own bracket depth.
Span initializer(const StreamView& v, std::size_t k);

/// The initializer of the nearest `name = ...` before k in k's function body, if there is one.
std::optional<Span> local_value(const StreamView& v, std::size_t k, std::string_view name);

/// Whether t is the integer literal `value` (any base or suffix).
bool is_literal(const Token& t, std::int64_t value);

/// A number with no l/ll suffix: an int or unsigned int, 32 bits.
bool is_32_bit_literal(const Token& t);

/// The tokens of s as one line of text, spaced only where two words would run together.
std::string span_text(const StreamView& v, Span s);

/// Whether span's tokens are a 32-bit all-ones mask: 0xffffffff (any case, u/l suffix),
/// 4294967295, ~0, ~0u, (unsigned)-1, or a name the facts know as one.
bool is_full_mask_32(const StreamView& v, Span s, const ProjectFacts& facts);

/// Whether span's tokens are a 64-bit all-ones mask (0xffffffffffffffff, ~0ull, ~0ul).
bool is_full_mask_64(const StreamView& v, Span s);

/// Identifiers that hold a thread index in one scope: initialised from threadIdx (plus blockIdx,
/// blockDim, gridDim, + and *) and nothing else, so `tid` and `i = blockIdx.x*blockDim.x +
/// threadIdx.x` are, `i0 = (blockDim.x*blockIdx.y + threadIdx.x)*4` is not.
std::set<std::string, std::less<>> thread_index_names(const StreamView& v, int scope);

/// Whether the operand ending at k (an identifier, `threadIdx.x`, or a parenthesised expression
/// or cast containing a thread index) is a thread index.
bool thread_index_operand_before(const StreamView& v, std::size_t k, const std::set<std::string, std::less<>>& names);

/// A declaration's type tokens before the declarator at k ("unsigned int x" -> "unsigned int"),
/// or nullopt when k is not a declarator.
std::optional<std::string> declared_type(const StreamView& v, std::size_t k);

/// Whether a type spelling is a 32-bit (or narrower) integer, following the project's typedefs.
bool is_narrow_integer(std::string_view type, const ProjectFacts& facts);

/// The position of the name of the function whose body opens at stream position k ("{"), or 0
/// when k opens none.
std::size_t function_name_at(const StreamView& v, std::size_t k);
/// The name of the function whose body opens at stream position k ("{"), if it is one.
std::optional<std::string> function_name(const StreamView& v, std::size_t k);

/// The return type of the function whose body opens at stream position k ("{"), as declared_type
/// spells it, leading attribute macros in capitals (MGPU_HOST_DEVICE) dropped; nullopt when k opens
/// no function.
std::optional<std::string> return_type(const StreamView& v, std::size_t k);

/// Whether s begins with p.
inline bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

/// A CUDA runtime or driver API name: cuda + upper case (cudaMalloc), cu + upper case
/// (cuMemAlloc), CU + lower case (CUresult).
bool is_cuda_api_name(std::string_view s);

/// The trimmed text of a file line.
std::string trimmed_line(const SourceFile& f, int line);

}  // namespace dcukit::port
