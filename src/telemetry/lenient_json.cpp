#include "telemetry/lenient_json.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>

#include "telemetry/text.h"
#include "util/json_text.h"

namespace dcukit::telemetry {
namespace {

using ojson = nlohmann::ordered_json;

class Reader {
public:
  Reader(std::string_view text, LenientJson& out) : m_s(text), m_out(out) {}

  void run() {
    while (true) {
      skip_ws();
      if (eof()) return;
      const char c = m_s[m_i];
      if (c == '{' || c == '[') {
        auto v = value();
        if (v) m_out.values.push_back(std::move(*v));
      } else {
        outside_line();
      }
    }
  }

private:
  bool eof() const { return m_i >= m_s.size(); }
  int line() const {
    int n = 1;
    for (std::size_t k = 0; k < m_i && k < m_s.size(); ++k) n += m_s[k] == '\n';
    return n;
  }
  void problem(const std::string& what) { m_out.problems.push_back(fmt::format("line {}: {}", line(), what)); }
  void skip_ws() {
    while (!eof() && std::isspace(static_cast<unsigned char>(m_s[m_i]))) ++m_i;
  }
  // Text that is not JSON (stderr lines, prompts): kept whole, up to the end of the line.
  void outside_line() {
    const std::size_t end = m_s.find('\n', m_i);
    const std::size_t stop = end == std::string_view::npos ? m_s.size() : end;
    const std::string_view text = trim(m_s.substr(m_i, stop - m_i));
    if (!text.empty()) m_out.outside.emplace_back(text);
    m_i = stop;
  }
  void cut_short() {
    if (!m_out.truncated) problem("the text ends inside a value (cut short); kept what came before");
    m_out.truncated = true;
  }

  std::optional<std::string> string() {
    ++m_i;  // the opening quote
    std::string out;
    while (!eof()) {
      const char c = m_s[m_i++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (eof()) break;
      const char e = m_s[m_i++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          if (m_i + 4 > m_s.size()) break;
          const unsigned long cp = std::strtoul(std::string(m_s.substr(m_i, 4)).c_str(), nullptr, 16);
          m_i += 4;
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          out += e;
      }
    }
    cut_short();
    return std::nullopt;
  }

  // A bare token: a number, true/false/null, or unquoted text such as 41.0C.
  ojson bare() {
    const std::size_t start = m_i;
    while (!eof() && m_s[m_i] != ',' && m_s[m_i] != '}' && m_s[m_i] != ']' && m_s[m_i] != '\n') ++m_i;
    const std::string token(trim(m_s.substr(start, m_i - start)));
    if (token == "true") return true;
    if (token == "false") return false;
    if (token == "null") return nullptr;
    char* end = nullptr;
    const double d = std::strtod(token.c_str(), &end);
    if (!token.empty() && end && *end == '\0') {
      // A whole number stays exact while it fits in 64 bits (signed, then unsigned, as nlohmann
      // reads it); a longer one is kept as a double.
      const char* last = token.data() + token.size();
      const auto exact = [&](auto& whole) {
        const auto [ptr, ec] = std::from_chars(token.data(), last, whole);
        return ec == std::errc() && ptr == last;
      };
      if (std::int64_t whole = 0; exact(whole)) return whole;
      if (std::uint64_t whole = 0; exact(whole)) return whole;
      return d;
    }
    problem(fmt::format("unquoted value '{}' read as text", token));
    return token;
  }

  std::optional<ojson> value() {
    skip_ws();
    if (eof()) {
      cut_short();
      return std::nullopt;
    }
    const char c = m_s[m_i];
    if (c == '{' || c == '[') {
      // The reader recurses once per level; the text's own depth check cannot see every way this
      // reader forgives quotes, so the depth is also held here.
      if (m_depth >= util::kMaxJsonDepth) {
        problem(fmt::format("nested deeper than {} levels; the rest is not read", util::kMaxJsonDepth));
        m_i = m_s.size();
        return std::nullopt;
      }
      ++m_depth;
      ojson v = c == '{' ? object() : array();
      --m_depth;
      return v;
    }
    if (c == '"') {
      auto s = string();
      if (!s) return std::nullopt;
      return ojson(*s);
    }
    return bare();
  }

  // After a member: ',' or the closer; forgives a missing comma and skips interleaved lines.
  // Returns false when the container ends (closer or end of text).
  bool after_member(char closer) {
    while (true) {
      skip_ws();
      if (eof()) {
        cut_short();
        return false;
      }
      const char c = m_s[m_i];
      if (c == ',') {
        ++m_i;
        return true;
      }
      if (c == closer) return false;
      if (c == '"' || c == '{' || c == '[') {
        problem("missing comma between members");
        return true;
      }
      outside_line();  // stderr mixed into stdout
    }
  }

  ojson object() {
    ++m_i;
    ojson obj = ojson::object();
    while (true) {
      skip_ws();
      if (eof()) {
        cut_short();
        return obj;
      }
      if (m_s[m_i] == '}') {
        ++m_i;
        return obj;
      }
      if (m_s[m_i] != '"') {
        outside_line();
        continue;
      }
      auto key = string();
      if (!key) return obj;
      skip_ws();
      if (!eof() && m_s[m_i] == ':')
        ++m_i;
      else if (!eof())
        problem(fmt::format("missing ':' after \"{}\"", *key));
      auto v = value();
      if (!v) return obj;
      if (obj.contains(*key) && !key->empty()) problem(fmt::format("repeated key \"{}\"; the last one kept", *key));
      obj[*key] = std::move(*v);
      if (!after_member('}')) {
        if (!eof() && m_s[m_i] == '}') ++m_i;
        return obj;
      }
    }
  }

  ojson array() {
    ++m_i;
    ojson arr = ojson::array();
    while (true) {
      skip_ws();
      if (eof()) {
        cut_short();
        return arr;
      }
      if (m_s[m_i] == ']') {
        ++m_i;
        return arr;
      }
      auto v = value();
      if (!v) return arr;
      arr.push_back(std::move(*v));
      if (!after_member(']')) {
        if (!eof() && m_s[m_i] == ']') ++m_i;
        return arr;
      }
    }
  }

  std::string_view m_s;
  std::size_t m_i = 0;
  int m_depth = 0;  ///< containers open around the value being read
  LenientJson& m_out;
};

}  // namespace

LenientJson read_lenient_json(std::string_view text) {
  LenientJson out;
  // The reader recurses once per level: nesting past any SMI tool's (under 10) is refused whole.
  if (util::json_depth(text) > util::kMaxJsonDepth) {
    out.problems.push_back(fmt::format("nested deeper than {} levels; not read as JSON", util::kMaxJsonDepth));
    return out;
  }
  Reader(text, out).run();
  return out;
}

}  // namespace dcukit::telemetry
