#pragma once
// The value of a preprocessor condition (`#if defined(X) && Y >= 800`) when some macros are
// known and others are not: three-valued, so that the audit can tell code that a HIP build
// never compiles (the condition is false) from code it compiles or may compile.
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "port/lexer.h"

namespace dcukit::port {

/// Three-valued truth: a condition can be known true, known false, or depend on what we do not know.
enum class Tri : std::uint8_t { no, yes, unknown };

/// a && b: false if either is false, unknown unless both are true.
inline Tri tri_and(Tri a, Tri b) {
  if (a == Tri::no || b == Tri::no) return Tri::no;
  return a == Tri::yes && b == Tri::yes ? Tri::yes : Tri::unknown;
}
/// a || b: true if either is true, unknown unless both are false.
inline Tri tri_or(Tri a, Tri b) {
  if (a == Tri::yes || b == Tri::yes) return Tri::yes;
  return a == Tri::no && b == Tri::no ? Tri::no : Tri::unknown;
}
/// !a; unknown stays unknown.
inline Tri tri_not(Tri a) {
  return a == Tri::unknown ? Tri::unknown : (a == Tri::yes ? Tri::no : Tri::yes);
}

/// What a condition needs to know about one macro.
struct MacroInfo {
  Tri defined = Tri::unknown;
  bool function_like = false;
  const std::vector<const Token*>* body = nullptr;  ///< object-like body when known, else null
  bool tainted = false;                             ///< an unknown the caller wants to trace (see condition_truth)
};

/// Answers "what is NAME" for the build being evaluated.
using MacroLookup = std::function<MacroInfo(std::string_view name)>;

/// Evaluates the condition tokens (comments already dropped) to a known integer, or nullopt
/// when it depends on something unknown or cannot be parsed.
std::optional<std::int64_t> eval_condition(const std::vector<const Token*>& tokens, const MacroLookup& lookup);

/// eval_condition as a truth value. When `tainted` is given, it says whether an unknown result
/// depends on a macro the lookup marked `tainted` (it does not when, say, that macro sits in a
/// conjunct another known-false operand already decides).
Tri condition_truth(const std::vector<const Token*>& tokens, const MacroLookup& lookup, bool* tainted = nullptr);

/// The integer a preprocessor number means (suffixes and separators allowed), if it is one.
std::optional<std::int64_t> parse_integer(std::string_view text);

}  // namespace dcukit::port
