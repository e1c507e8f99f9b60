#include "port/syntax.h"

#include <algorithm>
#include <cctype>

#include "port/pp_expr.h"
#include "port/project.h"

namespace dcukit::port {
namespace {

bool opens(std::string_view s) {
  return s == "(" || s == "[" || s == "{";
}
bool closes(std::string_view s) {
  return s == ")" || s == "]" || s == "}";
}

/// The span's text with enclosing parentheses removed, tokens joined without spaces, lower case.
std::string compact(const StreamView& v, Span s) {
  while (s.size() >= 2 && v.is(s.begin, "(") && match_close(v, s.begin) == s.end - 1) {
    ++s.begin;
    --s.end;
  }
  std::string out;
  for (std::size_t k = s.begin; k < s.end; ++k) out += v.at(k).text;
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool is_thread_builtin(std::string_view s) {
  return s == "threadIdx" || s == "hipThreadIdx_x" || s == "hipThreadIdx_y" || s == "hipThreadIdx_z";
}

/// Whether the initializer span is a pure thread index expression.
bool pure_thread_index(const StreamView& v, Span s, const std::set<std::string, std::less<>>& names) {
  bool has_thread = false;
  for (std::size_t k = s.begin; k < s.end; ++k) {
    const Token& t = v.at(k);
    if (t.kind == TokenKind::identifier) {
      if (is_thread_builtin(t.text) || names.count(t.text)) {
        has_thread = true;
        continue;
      }
      static const std::set<std::string, std::less<>> ok = {"blockIdx",
                                                            "blockDim",
                                                            "gridDim",
                                                            "x",
                                                            "y",
                                                            "z",
                                                            "int",
                                                            "unsigned",
                                                            "long",
                                                            "int64_t",
                                                            "int32_t",
                                                            "uint32_t",
                                                            "uint64_t",
                                                            "size_t",
                                                            "std",
                                                            "static_cast",
                                                            "const",
                                                            "signed",
                                                            "hipBlockIdx_x",
                                                            "hipBlockDim_x",
                                                            "hipBlockIdx_y",
                                                            "hipBlockDim_y"};
      if (!ok.count(t.text)) return false;
    } else if (t.kind == TokenKind::punct) {
      static const std::set<std::string, std::less<>> ok = {".", "+", "*", "(", ")", "::", "<", ">"};
      if (!ok.count(t.text)) return false;
    } else if (t.kind == TokenKind::number) {
      const auto n = parse_integer(t.text);
      if (!n || *n > 1) return false;
    } else {
      return false;
    }
  }
  return has_thread;
}

}  // namespace

std::size_t match_close(const StreamView& v, std::size_t k) {
  int depth = 0;
  for (std::size_t j = k; j < v.size(); ++j) {
    const Token& t = v.at(j);
    if (t.kind != TokenKind::punct) continue;
    if (opens(t.text)) ++depth;
    if (closes(t.text) && --depth == 0) return j;
  }
  return v.size();
}

std::size_t match_open(const StreamView& v, std::size_t k) {
  int depth = 0;
  for (std::size_t j = k + 1; j-- > 0;) {
    const Token& t = v.at(j);
    if (t.kind != TokenKind::punct) continue;
    if (closes(t.text)) ++depth;
    if (opens(t.text) && --depth == 0) return j;
  }
  return v.size();
}

std::vector<Span> call_args(const StreamView& v, std::size_t open) {
  std::vector<Span> out;
  const std::size_t close = match_close(v, open);
  if (close >= v.size()) return out;
  std::size_t start = open + 1;
  int depth = 0;
  for (std::size_t j = open + 1; j < close; ++j) {
    const Token& t = v.at(j);
    if (t.kind != TokenKind::punct) continue;
    if (opens(t.text)) ++depth;
    if (closes(t.text)) --depth;
    if (depth == 0 && t.text == ",") {
      out.push_back({start, j});
      start = j + 1;
    }
  }
  if (close > start || !out.empty()) out.push_back({start, close});
  return out;
}

std::size_t statement_start(const StreamView& v, std::size_t k) {
  for (std::size_t j = k; j-- > 0;) {
    const Token& t = v.at(j);
    if (t.kind == TokenKind::punct && (t.text == ";" || t.text == "{" || t.text == "}")) return j + 1;
  }
  return 0;
}

Span initializer(const StreamView& v, std::size_t k) {
  std::size_t e = k + 1;
  int depth = 0;
  for (; e < v.size(); ++e) {
    const std::string& t = v.at(e).text;
    if (t == "(" || t == "[" || t == "{") ++depth;
    if ((t == ")" || t == "]" || t == "}") && --depth < 0) break;
    if (depth == 0 && (t == ";" || t == ",")) break;
  }
  return {k + 1, e};
}

std::optional<Span> local_value(const StreamView& v, std::size_t k, std::string_view name) {
  const int scope = v.scope(k);
  if (scope < 0) return std::nullopt;
  const Span r = v.range(scope);
  for (std::size_t j = k; j-- > r.begin + 1;)
    if (v.at(j - 1).text == name && v.is(j, "=") && !v.is(j - 2, ".") && !v.is(j - 2, "->")) return initializer(v, j);
  return std::nullopt;
}

bool is_literal(const Token& t, std::int64_t value) {
  return t.kind == TokenKind::number && parse_integer(t.text) == value;
}

bool is_32_bit_literal(const Token& t) {
  return t.kind == TokenKind::number && t.text.find_first_of("lL") == std::string::npos;
}

std::string span_text(const StreamView& v, Span s) {
  std::string out;
  for (std::size_t k = s.begin; k < s.end; ++k) {
    const Token& t = v.at(k);
    if (!out.empty() && (t.kind == TokenKind::identifier || t.kind == TokenKind::number) &&
        (std::isalnum(static_cast<unsigned char>(out.back())) || out.back() == '_'))
      out += ' ';
    out += t.text;
  }
  return out;
}

bool is_full_mask_32(const StreamView& v, Span s, const ProjectFacts& facts) {
  if (s.empty()) return false;
  if (s.size() == 1 && v.at(s.begin).kind == TokenKind::identifier) {
    // A function's own variable answers for itself (another function's `mask` may be partial).
    if (const auto local = local_value(v, s.begin, v.at(s.begin).text))
      return local->begin < s.begin && is_full_mask_32(v, *local, facts);  // not `m = m`
    if (facts.full_masks.count(v.at(s.begin).text)) return true;
  }
  std::string c = compact(v, s);
  for (std::string_view cast : {"(unsigned)", "(unsignedint)", "(uint32_t)", "static_cast<unsigned>",
                                "static_cast<unsignedint>", "static_cast<uint32_t>", "unsigned", "uint32_t"})
    if (c.rfind(cast, 0) == 0) {
      c = c.substr(cast.size());
      if (c.size() >= 2 && c.front() == '(' && c.back() == ')') c = c.substr(1, c.size() - 2);
    }
  static const std::set<std::string, std::less<>> forms = {"~0", "~0u",      "~0x0",      "~0x0u",
                                                           "-1", "uint_max", "uint32_max"};
  if (forms.count(c)) return true;
  const auto value = parse_integer(c);
  return value && *value == 0xffffffffLL;
}

bool is_full_mask_64(const StreamView& v, Span s) {
  if (s.empty()) return false;
  const std::string c = compact(v, s);
  if (c == "~0ull" || c == "~0ul" || c == "~0llu" || c == "~0lu" || c == "ullong_max" || c == "uint64_max") return true;
  const auto value = parse_integer(c);
  return value && *value == -1 && c.size() >= 18;  // 0xffffffffffffffff
}

std::set<std::string, std::less<>> thread_index_names(const StreamView& v, int scope) {
  std::set<std::string, std::less<>> names;
  const Span r = v.range(scope);
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t k = std::max<std::size_t>(1, r.begin); k < r.end && k + 1 < v.size(); ++k) {
      if (v.scope(k) != scope || !v.is(k, "=") || v.at(k - 1).kind != TokenKind::identifier) continue;
      const std::string& name = v.at(k - 1).text;
      if (names.count(name)) continue;
      if (pure_thread_index(v, initializer(v, k), names)) {
        names.insert(name);
        grew = true;
      }
    }
  }
  return names;
}

bool thread_index_operand_before(const StreamView& v, std::size_t k, const std::set<std::string, std::less<>>& names) {
  if (k >= v.size()) return false;
  const Token& t = v.at(k);
  if (t.kind == TokenKind::identifier) {
    if (names.count(t.text) || (t.text.rfind("hipThreadIdx_", 0) == 0)) return true;
    return (t.text == "x" || t.text == "y" || t.text == "z") && k >= 2 && v.is(k - 1, ".") &&
           v.at(k - 2).text == "threadIdx";
  }
  if (t.text != ")") return false;
  const std::size_t o = match_open(v, k);
  if (o >= v.size()) return false;
  for (std::size_t j = o + 1; j < k; ++j)
    if (is_thread_builtin(v.at(j).text) || names.count(v.at(j).text)) return true;
  return false;
}

std::optional<std::string> declared_type(const StreamView& v, std::size_t k) {
  static const std::set<std::string, std::less<>> not_types = {
      "return",    "case",     "goto",   "else",      "new",    "delete",   "throw",
      "co_return", "co_yield", "sizeof", "typedef",   "using",  "operator", "struct",
      "class",     "enum",     "union",  "namespace", "public", "private",  "protected"};
  static const std::set<std::string, std::less<>> qualifiers = {
      "const",   "constexpr", "static",          "volatile",     "__shared__",   "register",
      "inline",  "extern",    "__device__",      "__restrict__", "__constant__", "thread_local",
      "mutable", "__host__",  "__forceinline__", "__noinline__"};
  std::vector<std::string> words;
  for (std::size_t j = k; j-- > 0;) {
    const Token& t = v.at(j);
    if (t.kind == TokenKind::identifier) {
      if (not_types.count(t.text)) return std::nullopt;
      if (!qualifiers.count(t.text)) words.push_back(t.text);
      continue;
    }
    if (t.kind == TokenKind::punct && (t.text == "::" || t.text == "*" || t.text == "&")) {
      words.push_back(t.text);
      continue;
    }
    break;
  }
  if (words.empty()) return std::nullopt;
  std::reverse(words.begin(), words.end());
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool is_narrow_integer(std::string_view type, const ProjectFacts& facts) {
  std::string t(type);
  // A reference is its integer (pytorch3d's `const uint& mask` parameter), a pointer is not.
  while (t.size() >= 2 && t.compare(t.size() - 2, 2, " &") == 0) t.resize(t.size() - 2);
  for (int depth = 0; depth < 4; ++depth) {
    if (t.find('*') != std::string::npos || t.find('&') != std::string::npos) return false;
    if (t.rfind("std :: ", 0) == 0) t = t.substr(7);
    static const std::set<std::string, std::less<>> narrow = {
        "int",     "unsigned",      "unsigned int", "signed",         "signed int",      "uint32_t",
        "int32_t", "uint",          "short",        "unsigned short", "uint16_t",        "int16_t",
        "char",    "unsigned char", "uint8_t",      "int8_t",         "unsigned int32_t"};
    if (narrow.count(t)) return true;
    auto it = facts.typedefs.find(t);
    if (it == facts.typedefs.end()) return false;
    t = it->second;
  }
  return false;
}

bool is_cuda_api_name(std::string_view n) {
  auto at = [&](std::size_t i) { return n.size() > i ? static_cast<unsigned char>(n[i]) : 0; };
  return (starts_with(n, "cuda") && std::isupper(at(4))) || (starts_with(n, "cu") && std::isupper(at(2))) ||
         (starts_with(n, "CU") && std::islower(at(2)));
}

std::string trimmed_line(const SourceFile& f, int line) {
  std::string_view s = line_text(f.text, f.lexed, line);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\\')) s.remove_suffix(1);
  std::string out(s);
  if (out.size() > 200) out = out.substr(0, 197) + "...";
  return out;
}

std::size_t function_name_at(const StreamView& v, std::size_t k) {
  std::size_t j = k;
  while (j > 0) {
    const Token& t = v.at(j - 1);
    if (t.kind == TokenKind::identifier &&
        (t.text == "const" || t.text == "noexcept" || t.text == "override" || t.text == "final" || t.text == "mutable"))
      --j;
    else
      break;
  }
  if (j == 0 || !v.is(j - 1, ")")) return 0;
  const std::size_t o = match_open(v, j - 1);
  if (o == 0 || o >= v.size() || v.at(o - 1).kind != TokenKind::identifier) return 0;
  static const std::set<std::string, std::less<>> control = {"if",     "for",   "while",
                                                             "switch", "catch", "__launch_bounds__"};
  if (control.count(v.at(o - 1).text)) return 0;
  return o - 1;
}

std::optional<std::string> function_name(const StreamView& v, std::size_t k) {
  const std::size_t name = function_name_at(v, k);
  if (name == 0) return std::nullopt;
  return v.at(name).text;
}

std::optional<std::string> return_type(const StreamView& v, std::size_t k) {
  const std::size_t name = function_name_at(v, k);
  if (name == 0) return std::nullopt;
  auto type = declared_type(v, name);
  if (!type) return std::nullopt;
  // MGPU_HOST_DEVICE unsigned -> unsigned
  for (std::size_t sp = type->find(' '); sp != std::string::npos; sp = type->find(' ')) {
    const std::string_view word(type->data(), sp);
    if (!std::all_of(word.begin(), word.end(), [](char c) {
          return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
        }))
      break;
    type->erase(0, sp + 1);
  }
  return type;
}

}  // namespace dcukit::port
