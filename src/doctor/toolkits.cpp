#include "doctor/toolkits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "doctor/text.h"
#include "util/json_text.h"

namespace dcukit::doctor {
namespace {

// glibc's trusted folders on the 64-bit distributions DTK, ROCm and CUDA support.
constexpr const char* kDefaultLibDirs[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// "6.2.4-120" -> "6.2.4"; "CUDA Version 11.8.0" -> "11.8.0": the first run of digits and dots.
std::string first_version(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && !is_digit(text[i])) ++i;
  std::size_t j = i;
  while (j < text.size() && (is_digit(text[j]) || text[j] == '.')) ++j;
  std::string v(text.substr(i, j - i));
  while (!v.empty() && v.back() == '.') v.pop_back();
  return v;
}

std::string version_of_defines(const std::map<std::string, std::string>& defs) {
  auto get = [&](const char* k) {
    auto it = defs.find(k);
    return it == defs.end() ? std::string() : first_version(it->second);
  };
  if (get("HIP_VERSION_MAJOR").empty() || get("HIP_VERSION_MINOR").empty()) return {};
  const std::string patch = get("HIP_VERSION_PATCH");
  return fmt::format("{}.{}.{}", get("HIP_VERSION_MAJOR"), get("HIP_VERSION_MINOR"), patch.empty() ? "0" : patch);
}

// The HIP version a DTK or ROCm install ships: hip_version.h's #defines, or .hipVersion's NAME=value lines.
std::string hip_version(const util::Root& root, const std::string& dir) {
  for (const char* rel : {"include/hip/hip_version.h", "hip/include/hip/hip_version.h"}) {
    auto text = root.read(util::join_path(dir, rel));
    if (!text) continue;
    std::map<std::string, std::string> defs;
    for (const auto& line : lines(*text)) {
      const auto parts = split(line, ' ', Empties::skip);
      if (parts.size() >= 3 && parts[0] == "#define") defs[parts[1]] = parts[2];
    }
    if (auto v = version_of_defines(defs); !v.empty()) return v;
  }
  for (const char* rel : {"bin/.hipVersion", "hip/bin/.hipVersion"}) {
    auto text = root.read(util::join_path(dir, rel));
    if (!text) continue;
    std::map<std::string, std::string> defs;
    for (const auto& line : lines(*text))
      if (auto eq = line.find('='); eq != std::string::npos)
        defs[std::string(trim(std::string_view(line).substr(0, eq)))] =
            std::string(trim(std::string_view(line).substr(eq + 1)));
    if (auto v = version_of_defines(defs); !v.empty()) return v;
  }
  return {};
}

// DTK versions are year.month ("24.04", "25.04.4"); ROCm's are 5.x/6.x/7.x.
bool looks_like_dtk_version(const std::string& v) {
  const auto major = parse_int(v.substr(0, v.find('.')));
  return major && *major >= 21 && *major < 100;
}

void fill_version(const util::Root& root, Install& in, std::string_view base) {
  if (in.kind == ToolkitKind::cuda) {
    if (auto text = root.read(util::join_path(in.path, "version.json"))) {
      const auto j = util::parse_json(*text);
      if (j.is_object() && j.contains("cuda") && j["cuda"].is_object() && j["cuda"].contains("version") &&
          j["cuda"]["version"].is_string()) {
        in.version = j["cuda"]["version"].get<std::string>();
        in.version_source = util::join_path(in.path, "version.json");
        return;
      }
    }
    if (auto line = root.first_line(util::join_path(in.path, "version.txt"))) {
      in.version = first_version(*line);
      in.version_source = util::join_path(in.path, "version.txt");
      return;
    }
    in.version = first_version(base);
    if (!in.version.empty()) in.version_source = "the folder's name";
    return;
  }
  for (const auto& name : root.glob(util::join_path(in.path, ".info"), "version*")) {
    if (auto line = root.first_line(util::join_path(util::join_path(in.path, ".info"), name))) {
      const std::string v = first_version(*line);
      if (v.empty()) continue;
      in.version = v;
      in.version_source = util::join_path(util::join_path(in.path, ".info"), name);
      if (name == "version") break;  // the plain file wins over version-dev, version-utils
    }
  }
  if (in.version.empty() && in.kind == ToolkitKind::dtk) {
    in.version = version_from_name(base);
    if (!in.version.empty()) in.version_source = "the folder's name";
  }
  in.hip_version = hip_version(root, in.path);
}

std::optional<ToolkitKind> kind_of(const util::Root& root, const std::string& path, std::string_view base) {
  const std::string b = lower(base);
  if (contains(b, "dtk")) return ToolkitKind::dtk;
  if (contains(b, "cuda") || root.exists(util::join_path(path, "bin/nvcc"))) return ToolkitKind::cuda;
  const bool hip = root.exists(util::join_path(path, "bin/hipcc")) || root.is_dir(util::join_path(path, ".info")) ||
                   root.exists(util::join_path(path, "include/hip/hip_version.h"));
  if (!hip && !contains(b, "rocm")) return std::nullopt;
  for (const auto& name : root.glob(util::join_path(path, ".info"), "version*"))
    if (looks_like_dtk_version(first_version(root.first_line(util::join_path(path, ".info/" + name)).value_or(""))))
      return ToolkitKind::dtk;
  return ToolkitKind::rocm;
}

void add_install(const util::Root& root, Toolkits& t, const std::string& named, const std::string& how) {
  if (!root.is_dir(named)) return;
  const std::string canonical = root.resolve(named);
  for (auto& in : t.installs)
    if (in.path == canonical) {
      if (std::find(in.names.begin(), in.names.end(), how) == in.names.end()) in.names.push_back(how);
      return;
    }
  const std::string base = canonical.substr(canonical.rfind('/') + 1);
  auto kind = kind_of(root, canonical, base);
  if (!kind) kind = kind_of(root, canonical, named.substr(named.rfind('/') + 1));
  if (!kind) return;
  Install in;
  in.kind = *kind;
  in.path = canonical;
  in.names.push_back(how);
  fill_version(root, in, base);
  t.installs.push_back(std::move(in));
}

int install_index(const Toolkits& t, const std::string& canonical) {
  int best = -1;
  std::size_t best_len = 0;
  for (std::size_t i = 0; i < t.installs.size(); ++i) {
    const std::string& p = t.installs[i].path;
    if (starts_with(canonical, p + "/") && p.size() > best_len) {
      best = static_cast<int>(i);
      best_len = p.size();
    }
  }
  return best;
}

void read_ld_conf(const util::Root& root, const std::string& file, std::vector<LoaderDir>& out, int depth) {
  if (depth > 8) return;
  auto text = root.read(file);
  if (!text) return;
  for (const auto& raw : lines(*text)) {
    std::string line(trim(std::string_view(raw).substr(0, raw.find('#'))));
    if (line.empty()) continue;
    if (starts_with(line, "include")) {
      for (const auto& pattern : split(std::string_view(line).substr(7), ' ', Empties::skip)) {
        std::string p(trim(pattern));
        if (p.empty()) continue;
        if (p.front() != '/') p = util::join_path(file.substr(0, file.rfind('/')), p);
        const std::string dir = p.substr(0, p.rfind('/'));
        for (const auto& name : root.glob(dir, p.substr(p.rfind('/') + 1)))
          read_ld_conf(root, util::join_path(dir, name), out, depth + 1);
      }
      continue;
    }
    if (starts_with(line, "hwcap")) continue;
    for (const auto& d : split(line, ' ', Empties::skip))
      for (const auto& d2 : split(d, ',', Empties::skip))
        for (const auto& d3 : split(d2, ':', Empties::skip))
          if (!d3.empty() && d3.front() == '/') out.push_back({d3, file});
  }
}

}  // namespace

std::string_view to_string(ToolkitKind k) {
  return util::name_of(kToolkitKindNames, k);
}

std::string version_from_name(std::string_view name) {
  const std::string n = lower(name);
  const auto at = n.find("dtk");
  if (at == std::string::npos) return {};
  return first_version(std::string_view(n).substr(at + 3));
}

const Install* Toolkits::install_of(const std::optional<Located>& l) const {
  if (!l || l->install < 0 || l->install >= static_cast<int>(installs.size())) return nullptr;
  return &installs[static_cast<std::size_t>(l->install)];
}

std::vector<LoaderDir> loader_search_path(const util::Root& root, const std::string& ld_library_path) {
  std::vector<LoaderDir> out;
  for (const auto& part : split(ld_library_path, ':', Empties::skip))
    for (const auto& d : split(part, ';', Empties::skip))
      if (!d.empty() && d.front() == '/') out.push_back({d, "LD_LIBRARY_PATH"});
  read_ld_conf(root, "/etc/ld.so.conf", out, 0);
  for (const char* d : kDefaultLibDirs) out.push_back({d, "default folder"});
  return out;
}

std::optional<Located> resolve_library(const util::Root& root, const std::vector<LoaderDir>& dirs,
                                       std::string_view stem) {
  const std::string pattern = std::string(stem) + "*";
  for (const auto& d : dirs) {
    auto names = root.glob(d.dir, pattern);
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& n) {
                                 return n.size() > stem.size() && n[stem.size()] != '.';  // libcudart_static.a
                               }),
                names.end());
    if (names.empty()) continue;
    for (const auto& n : names) root.stat(util::join_path(d.dir, n));  // looked at: a bundle keeps them
    // The soname link (libamdhip64.so.6) is what a program asks for; the plain .so serves links.
    std::string pick = names.front();
    for (const auto& n : names)
      if (n.size() > stem.size() + 1 && std::count(n.begin() + static_cast<long>(stem.size()), n.end(), '.') == 1)
        pick = n;
    Located l;
    l.path = util::join_path(d.dir, pick);
    l.canonical = root.resolve(l.path);
    l.via = d.via;
    return l;
  }
  return std::nullopt;
}

std::optional<Located> find_on_path(const util::Root& root, const std::string& path, std::string_view program) {
  for (const auto& dir : split(path, ':', Empties::skip)) {
    if (dir.empty() || dir.front() != '/') continue;
    const std::string candidate = util::join_path(dir, program);
    const auto st = root.stat(candidate);
    if (!st || st->type != util::FileType::regular || (st->mode & 0111) == 0) continue;
    Located l;
    l.path = candidate;
    l.canonical = root.resolve(candidate);
    l.via = "PATH";
    return l;
  }
  return std::nullopt;
}

Toolkits discover_toolkits(const util::Root& root, const std::map<std::string, std::string>& env) {
  Toolkits t;
  for (const char* base : {"/opt", "/usr/local"})
    for (const char* pattern : {"dtk*", "rocm*", "cuda*"})
      for (const auto& name : root.glob(base, pattern)) {
        const std::string p = util::join_path(base, name);
        add_install(root, t, p, p);
      }
  for (const char* var : kToolkitEnv) {
    auto it = env.find(var);
    if (it == env.end() || it->second.empty()) continue;
    if (!root.is_dir(it->second)) {
      t.missing_env[var] = it->second;
      continue;
    }
    add_install(root, t, it->second, std::string("$") + var);
  }
  // In path order, whatever order the links and variables named them in.
  std::stable_sort(t.installs.begin(), t.installs.end(),
                   [](const Install& a, const Install& b) { return a.path < b.path; });
  const auto path = env.count("PATH") ? env.at("PATH") : std::string();
  t.hipcc = find_on_path(root, path, "hipcc");
  t.nvcc = find_on_path(root, path, "nvcc");
  t.loader_dirs = loader_search_path(root, env.count("LD_LIBRARY_PATH") ? env.at("LD_LIBRARY_PATH") : "");
  t.hip_runtime = resolve_library(root, t.loader_dirs, "libamdhip64.so");
  t.cuda_runtime = resolve_library(root, t.loader_dirs, "libcudart.so");
  for (auto* l : {&t.hipcc, &t.nvcc, &t.hip_runtime, &t.cuda_runtime})
    if (*l) (*l)->install = install_index(t, (*l)->canonical);
  return t;
}

}  // namespace dcukit::doctor
