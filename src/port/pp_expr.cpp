#include "port/pp_expr.h"

#include <cctype>
#include <string>

namespace dcukit::port {
namespace {

/// A value, or an unknown that remembers whether a tainted macro made it unknown.
struct Val {
  std::optional<std::int64_t> v;
  bool taint = false;
  Val() = default;
  Val(std::int64_t x) : v(x) {}
  Val(std::nullopt_t) {}
  static Val unknown(bool t) {
    Val r;
    r.taint = t;
    return r;
  }
  explicit operator bool() const { return v.has_value(); }
  std::int64_t operator*() const { return *v; }
};

class Parser {
public:
  Parser(const std::vector<const Token*>& toks, const MacroLookup& lookup, int depth)
      : m_toks(toks), m_lookup(lookup), m_depth(depth) {}

  Val parse() {
    Val v = conditional();
    if (m_pos != m_toks.size()) m_bad = true;
    return m_bad ? Val::unknown(v.taint) : v;
  }

private:
  const Token* peek() const { return m_pos < m_toks.size() ? m_toks[m_pos] : nullptr; }
  bool accept(std::string_view op) {
    const Token* t = peek();
    if (t && t->kind == TokenKind::punct && t->text == op) {
      ++m_pos;
      return true;
    }
    return false;
  }

  Val conditional() {
    Val c = logical_or();
    if (!accept("?")) return c;
    Val a = conditional();
    if (!accept(":")) m_bad = true;
    Val b = conditional();
    if (c) return *c ? a : b;
    return a && b && *a == *b ? a : Val::unknown(c.taint || a.taint || b.taint);
  }
  Val logical_or() {
    Val a = logical_and();
    while (accept("||")) {
      Val b = logical_and();
      if ((a && *a) || (b && *b))
        a = 1;
      else if (a && b)
        a = 0;
      else
        a = Val::unknown(a.taint || b.taint);
    }
    return a;
  }
  Val logical_and() {
    Val a = binary(0);
    while (accept("&&")) {
      Val b = binary(0);
      if ((a && !*a) || (b && !*b))
        a = 0;
      else if (a && b)
        a = 1;
      else
        a = Val::unknown(a.taint || b.taint);
    }
    return a;
  }

  // Precedence levels from loosest to tightest: | ^ & (== !=) (< > <= >=) (<< >>) (+ -) (* / %).
  static constexpr std::string_view kLevels[8][4] = {
      {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
  Val binary(int level) {
    if (level == 8) return unary();
    Val a = binary(level + 1);
    for (;;) {
      const Token* t = peek();
      if (!t || t->kind != TokenKind::punct) return a;
      std::string_view op;
      for (auto o : kLevels[level])
        if (!o.empty() && t->text == o) op = o;
      if (op.empty()) return a;
      ++m_pos;
      Val b = binary(level + 1);
      a = apply(op, a, b);
    }
  }
  static Val apply(std::string_view op, Val a, Val b) {
    if (!a || !b) return Val::unknown(a.taint || b.taint);
    const std::int64_t x = *a, y = *b;
    if (op == "|") return x | y;
    if (op == "^") return x ^ y;
    if (op == "&") return x & y;
    if (op == "==") return x == y;
    if (op == "!=") return x != y;
    if (op == "<") return x < y;
    if (op == ">") return x > y;
    if (op == "<=") return x <= y;
    if (op == ">=") return x >= y;
    if (op == "<<") return y >= 0 && y < 63 ? Val(x << y) : Val();
    if (op == ">>") return y >= 0 && y < 63 ? Val(x >> y) : Val();
    if (op == "+") return x + y;
    if (op == "-") return x - y;
    if (op == "*") return x * y;
    if (op == "/") return y == 0 ? Val() : Val(x / y);
    if (op == "%") return y == 0 ? Val() : Val(x % y);
    return Val();
  }

  Val unary() {
    if (accept("!")) {
      Val v = unary();
      return v ? Val(!*v) : v;
    }
    if (accept("~")) {
      Val v = unary();
      return v ? Val(~*v) : v;
    }
    if (accept("-")) {
      Val v = unary();
      return v ? Val(-*v) : v;
    }
    if (accept("+")) return unary();
    return primary();
  }

  /// Skips a parenthesised argument list when the next token opens one.
  void skip_args() {
    if (!accept("(")) return;
    for (int depth = 1; depth > 0 && m_pos < m_toks.size(); ++m_pos) {
      if (m_toks[m_pos]->text == "(") ++depth;
      if (m_toks[m_pos]->text == ")") --depth;
    }
  }

  Val primary() {
    const Token* t = peek();
    if (!t) {
      m_bad = true;
      return std::nullopt;
    }
    if (accept("(")) {
      Val v = conditional();
      if (!accept(")")) m_bad = true;
      return v;
    }
    ++m_pos;
    if (t->kind == TokenKind::number) {
      auto v = parse_integer(t->text);
      return v ? Val(*v) : Val();
    }
    if (t->kind == TokenKind::character) {
      return t->text.size() == 3 ? Val(static_cast<unsigned char>(t->text[1])) : std::nullopt;
    }
    if (t->kind != TokenKind::identifier) {
      m_bad = true;
      return std::nullopt;
    }
    if (t->text == "defined") return defined();
    if (t->text == "true") return 1;
    if (t->text == "false") return 0;
    if (t->text.rfind("__has_", 0) == 0) {
      skip_args();
      return std::nullopt;
    }
    const MacroInfo m = m_lookup(t->text);
    if (m.function_like) {
      skip_args();
      return Val::unknown(m.tainted);
    }
    if (m.defined == Tri::no) return 0;  // an undefined identifier is 0 in #if
    if (m.defined == Tri::unknown || m.body == nullptr || m_depth > 16) return Val::unknown(m.tainted);
    if (m.body->empty()) return Val::unknown(m.tainted);  // defined as nothing: not a number
    return Parser(*m.body, m_lookup, m_depth + 1).parse();
  }

  Val defined() {
    const bool paren = accept("(");
    const Token* name = peek();
    if (!name || name->kind != TokenKind::identifier) {
      m_bad = true;
      return std::nullopt;
    }
    ++m_pos;
    if (paren && !accept(")")) m_bad = true;
    const MacroInfo m = m_lookup(name->text);
    if (m.defined == Tri::unknown) return Val::unknown(m.tainted);
    return m.defined == Tri::yes ? 1 : 0;
  }

  const std::vector<const Token*>& m_toks;
  const MacroLookup& m_lookup;
  int m_depth;
  std::size_t m_pos = 0;
  bool m_bad = false;
};

}  // namespace

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::string s;
  for (char c : text)
    if (c != '\'') s += c;
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
  if (s.empty()) return std::nullopt;
  int base = 10;
  std::size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    i = 1;
  }
  unsigned long long v = 0;
  for (; i < s.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (d < 0 || d >= base) return std::nullopt;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
  }
  return static_cast<std::int64_t>(v);
}

std::optional<std::int64_t> eval_condition(const std::vector<const Token*>& tokens, const MacroLookup& lookup) {
  if (tokens.empty()) return std::nullopt;
  return Parser(tokens, lookup, 0).parse().v;
}

Tri condition_truth(const std::vector<const Token*>& tokens, const MacroLookup& lookup, bool* tainted) {
  const Val v = tokens.empty() ? Val() : Parser(tokens, lookup, 0).parse();
  if (tainted) *tainted = !v && v.taint;
  if (!v) return Tri::unknown;
  return *v ? Tri::yes : Tri::no;
}

}  // namespace dcukit::port
