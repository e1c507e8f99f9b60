// The files an audit or a translation reads: the paths given, and the sources under each folder
// (by suffix, and the headers without one that read as headers or that a source includes).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "port/project.h"
#include "port/syntax.h"
#include "util/files.h"

namespace dcukit::port {
namespace {

namespace fs = std::filesystem;

bool is_source_suffix(const fs::path& p) {
  static const std::set<std::string, std::less<>> k = {".cu",  ".cuh", ".cpp", ".cc",  ".cxx", ".h",
                                                       ".hpp", ".hxx", ".hh",  ".inl", ".ipp", ".hip"};
  return k.count(p.extension().string()) > 0;
}

/// The names a source includes (`#include <cuco/detail/__config>` gives cuco/detail/__config).
std::vector<std::string> include_names(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t pos = 0; (pos = text.find("include", pos)) != std::string::npos; pos += 7) {
    std::size_t h = text.rfind('\n', pos);
    h = h == std::string::npos ? 0 : h + 1;
    while (h < pos && (text[h] == ' ' || text[h] == '\t')) ++h;
    if (text[h] != '#') continue;
    std::size_t b = pos + 7;
    while (b < text.size() && (text[b] == ' ' || text[b] == '\t')) ++b;
    if (b >= text.size() || (text[b] != '<' && text[b] != '"')) continue;
    const std::size_t e = text.find(text[b] == '<' ? '>' : '"', b + 1);
    if (e != std::string::npos && e - b < 256) out.push_back(text.substr(b + 1, e - b - 1));
  }
  return out;
}

/// Whether a file without a suffix reads as a C++ header: its first line that is neither blank nor
/// a comment is a preprocessor directive (#pragma once, #ifndef GUARD, #include, #define). A
/// Makefile's or a script's `# comment`, `#!/bin/sh`, a README or a LICENSE is not.
bool reads_as_header(const std::string& text) {
  bool block = false;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (block) {
      const auto close = line.find("*/");
      if (close == std::string_view::npos) continue;
      line.remove_prefix(close + 2);
      block = false;
    }
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    if (line.empty() || starts_with(line, "//")) continue;
    if (starts_with(line, "/*")) {
      block = line.find("*/", 2) == std::string_view::npos;
      continue;
    }
    if (line.front() != '#') return false;
    const auto word = [&line] {
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      std::size_t n = 0;
      while (n < line.size() && (std::isalnum(static_cast<unsigned char>(line[n])) || line[n] == '_')) ++n;
      const std::string_view w = line.substr(0, n);
      line.remove_prefix(n);
      return w;
    };
    line.remove_prefix(1);
    const std::string_view directive = word();
    const std::string_view name = word();
    // `#include <x>`, `#pragma once`, `#ifndef GUARD`, `#define GUARD`; a Markdown heading
    // (`# include the header`) has words where these have a path or one macro name.
    if (directive == "include") return name.empty() && !line.empty() && (line.front() == '<' || line.front() == '"');
    if (directive == "pragma") return !name.empty();
    const bool macro_name = !name.empty() && std::none_of(name.begin(), name.end(), [](char c) {
      return std::islower(static_cast<unsigned char>(c));
    });
    if (directive == "ifndef" || directive == "ifdef" || directive == "define") return macro_name;
    return false;
  }
  return false;
}

/// A folder's headers without a suffix (libcu++'s style: cuCollections' cuco/detail/__config) are
/// sources where they read as headers, or where a source of the folder includes them.
void add_included_bare_headers(std::vector<std::string>& found, std::vector<std::string> bare) {
  for (auto it = bare.begin(); it != bare.end();) {
    const auto text = util::read_file(*it, util::InputLimit{1 << 20, "a header without a suffix"});
    if (text && reads_as_header(*text)) {
      found.push_back(*it);
      it = bare.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<std::string> queue = found;
  while (!queue.empty() && !bare.empty()) {
    const std::string path = queue.back();
    queue.pop_back();
    const auto text = util::read_file(path, util::kSourceInput);
    if (!text) continue;  // reported when the sources are read
    for (const std::string& name : include_names(*text)) {
      if (name.find('.') != std::string::npos) continue;
      for (auto it = bare.begin(); it != bare.end();) {
        const std::string normal = normal_path(*it);
        const bool match = normal == name || (normal.size() > name.size() &&
                                              normal.compare(normal.size() - name.size(), name.size(), name) == 0 &&
                                              normal[normal.size() - name.size() - 1] == '/');
        if (!match) {
          ++it;
          continue;
        }
        found.push_back(*it);
        queue.push_back(*it);
        it = bare.erase(it);
      }
    }
  }
}

}  // namespace

Result<std::vector<std::string>> expand_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    if (ec || !fs::exists(st))
      return Error{
          fmt::format("{}: no such file or folder; pass CUDA sources (.cu .cuh .cpp .h .hpp) or a folder "
                      "that holds them",
                      p)};
    if (!fs::is_directory(st)) {
      out.push_back(p);
      continue;
    }
    std::vector<std::string> found, bare;
    for (fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) {
        if (is_source_suffix(it->path()))
          found.push_back(it->path().string());
        else if (!it->path().has_extension())
          bare.push_back(it->path().string());
      }
    if (ec) return Error{fmt::format("{}: cannot list the folder: {}", p, ec.message())};
    add_included_bare_headers(found, bare);
    if (found.empty())
      return Error{
          fmt::format("{}: the folder holds no .cu .cuh .cpp .cc .cxx .h .hpp .hxx .hh .inl .ipp or .hip file", p)};
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

}  // namespace dcukit::port
