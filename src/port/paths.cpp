// The files an audit or a translation reads: the paths given, and the sources under each folder
// (by suffix, and the headers without one whose text reads as a header).
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

constexpr std::size_t kBareHeaderBytes = std::size_t{1} << 20;

/// Whether `path`, under the folder `root`, lies in a hidden folder (.git, .cache) or is hidden.
bool hidden(const fs::path& path, const fs::path& root) {
  for (const auto& part : path.lexically_relative(root))
    if (const std::string n = part.string(); n.size() > 1 && n[0] == '.' && n != "..") return true;
  return false;
}

bool is_source_suffix(const fs::path& p) {
  static const std::set<std::string, std::less<>> k = {".cu",  ".cuh", ".cpp", ".cc",  ".cxx", ".h",
                                                       ".hpp", ".hxx", ".hh",  ".inl", ".ipp", ".hip"};
  return k.count(p.extension().string()) > 0;
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
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec)) {
        if (is_source_suffix(it->path())) {
          found.push_back(it->path().string());
        } else if (!it->path().has_extension() && it->file_size(ec) <= kBareHeaderBytes && !hidden(it->path(), p)) {
          // A header without a suffix, libcu++'s style (cuCollections' cuco/detail/__config),
          // where its text reads as one; a Makefile, a README or .git's objects are not read so.
          const auto text = util::read_file(it->path().string(), util::InputLimit{kBareHeaderBytes, "a header"});
          if (text && reads_as_header(*text)) found.push_back(it->path().string());
        }
      }
    if (ec) return Error{fmt::format("{}: cannot list the folder: {}", p, ec.message())};
    if (found.empty())
      return Error{
          fmt::format("{}: the folder holds no .cu .cuh .cpp .cc .cxx .h .hpp .hxx .hh .inl .ipp or .hip file", p)};
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

}  // namespace dcukit::port
