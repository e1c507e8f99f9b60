// toolkit.installs, toolkit.env, toolkit.compiler, toolkit.runtime, toolkit.mismatch: which DTK,
// ROCm and CUDA installs there are, which compiler and runtime the environment picks, and seed
// 004's "compiled with one version, running another" ("编译时用一个版本，运行时加载另一个版本的动态库").
#include <fmt/format.h>

#include "doctor/checks.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

std::string describe(const Install& in) {
  std::string s =
      fmt::format("{} {} at {}", to_string(in.kind), in.version.empty() ? "(version unknown)" : in.version, in.path);
  if (!in.hip_version.empty()) s += ", HIP " + in.hip_version;
  s += fmt::format(" (found as {}", fmt::join(in.names, ", "));
  if (!in.version_source.empty()) s += "; version from " + in.version_source;
  return s + ")";
}

std::string describe(const Toolkits& t, const std::optional<Located>& l, std::string_view what) {
  if (!l) return fmt::format("{}: not found", what);
  std::string s = fmt::format("{}: {}", what, l->path);
  if (l->canonical != l->path) s += " -> " + l->canonical;
  s += " (via " + l->via + ")";
  if (const Install* in = t.install_of(l))
    s += fmt::format(", in {} {}", to_string(in->kind), in->version);
  else
    s += ", in no known install";
  return s;
}

bool is_hip(const Install& in) {
  return in.kind != ToolkitKind::cuda;
}

/// What to run so that one install is used for compiling and running.
std::string use_install(const Install& in) {
  if (in.kind == ToolkitKind::dtk)
    return fmt::format("source {}/env.sh   # one DTK for compiling and running", in.path);
  const char* lib = in.kind == ToolkitKind::cuda ? "lib64" : "lib";
  return fmt::format("export PATH={0}/bin:$PATH LD_LIBRARY_PATH={0}/{1}:$LD_LIBRARY_PATH{2}", in.path, lib,
                     in.kind == ToolkitKind::rocm ? " ROCM_PATH=" + in.path : " CUDA_HOME=" + in.path);
}

void installs(const Context& c, std::vector<Finding>& out) {
  const auto& t = c.toolkits;
  std::vector<std::string> ev;
  int hip = 0;
  for (const auto& in : t.installs) {
    ev.push_back(describe(in));
    hip += is_hip(in);
  }
  if (ev.empty()) ev.push_back("/opt and /usr/local: no dtk*, rocm* or cuda* folder; no toolkit variable names one");
  if (c.hip_host() && hip == 0) {
    auto& f = add(out, Category::toolkit, "toolkit.installs", Verdict::warn, "a DCU/AMD host without DTK or ROCm");
    f.evidence = ev;
    f.why = "Hygon's torch and vLLM wheels load DTK's libraries (libamdhip64, rocBLAS, MIOpen) from the host";
    f.fix = c.has(core::Vendor::hygon)
                ? "install the DTK that matches the driver (Hygon developer community), unpack it "
                  "to /opt/dtk-<version>, then: source /opt/dtk/env.sh"
                : "install ROCm: sudo apt install rocm   # from repo.radeon.com";
    return;
  }
  std::vector<std::string> names;
  for (const auto& in : t.installs)
    names.push_back(fmt::format("{} {} ({})", to_string(in.kind), in.version.empty() ? "?" : in.version, in.path));
  std::string summary = t.installs.empty() ? "no toolkit installed" : fmt::format("{}", fmt::join(names, ", "));
  if (hip > 1) summary += fmt::format(" ({} DTK/ROCm: see toolkit.mismatch)", hip);
  add(out, Category::toolkit, "toolkit.installs", Verdict::ok, summary).evidence = ev;
}

void environment(const Context& c, std::vector<Finding>& out) {
  const auto& t = c.toolkits;
  std::vector<std::string> ev, problems;
  std::map<std::string, std::string> named;  // variable -> canonical install path
  for (const char* var : kToolkitEnv) {
    const std::string v = c.getenv(var);
    if (v.empty()) continue;
    if (t.missing_env.count(var)) {
      ev.push_back(fmt::format("{}={}: no such folder", var, v));
      problems.push_back(fmt::format("{} names a missing folder", var));
      continue;
    }
    const std::string canonical = c.root.resolve(v);
    named[var] = canonical;
    ev.push_back(fmt::format("{}={}{}", var, v, canonical != v ? " -> " + canonical : ""));
  }
  auto differ = [&](const char* a, const char* b) {
    if (named.count(a) && named.count(b) && named[a] != named[b])
      problems.push_back(fmt::format("{} and {} name different installs", a, b));
  };
  differ("DTK_HOME", "ROCM_PATH");
  differ("ROCM_PATH", "HIP_PATH");
  differ("CUDA_HOME", "CUDA_PATH");
  const Install* rt = t.install_of(t.hip_runtime);
  for (const char* var : {"ROCM_PATH", "DTK_HOME"})
    if (rt && named.count(var) && named[var] != rt->path)
      problems.push_back(
          fmt::format("{} names {} but the loader takes libamdhip64 from {}", var, named[var], rt->path));
  int hip_installs = 0;
  for (const auto& in : t.installs) hip_installs += is_hip(in);
  if (c.hip_host() && hip_installs > 0 && !named.count("ROCM_PATH") && !named.count("DTK_HOME")) {
    ev.push_back("ROCM_PATH and DTK_HOME: unset");
    problems.push_back("neither ROCM_PATH nor DTK_HOME is set");
  }
  if (problems.empty()) {
    add(out, Category::toolkit, "toolkit.env", Verdict::ok,
        ev.empty() ? "no toolkit variable set" : "the toolkit variables agree")
        .evidence =
        ev.empty() ? std::vector<std::string>{"DTK_HOME, ROCM_PATH, ROCM_HOME, HIP_PATH, CUDA_HOME, CUDA_PATH: unset"}
                   : ev;
    return;
  }
  const Install* target = rt ? rt : hip_install_in_use(c);
  auto& f = add(out, Category::toolkit, "toolkit.env", t.missing_env.empty() ? Verdict::warn : Verdict::fail,
                fmt::format("{}", fmt::join(problems, "; ")));
  f.evidence = ev;
  f.why =
      "torch extensions, Triton and vLLM find the toolkit through these variables; pointing at another (or no) "
      "install builds or loads against a version the runtime is not";
  f.fix = target ? use_install(*target) : "unset the variables that name missing folders, or point them at an install";
}

// The DTK or ROCm install $DTK_HOME or $ROCM_PATH names, or nullptr.
const Install* named_install(const Context& c) {
  for (const char* var : {"DTK_HOME", "ROCM_PATH"}) {
    const std::string v = c.getenv(var);
    if (v.empty()) continue;
    const std::string canonical = c.root.resolve(v);
    for (const auto& in : c.toolkits.installs)
      if (in.path == canonical && is_hip(in)) return &in;
  }
  return nullptr;
}

void compiler(const Context& c, std::vector<Finding>& out) {
  const auto& t = c.toolkits;
  std::vector<std::string> ev{describe(t, t.hipcc, "hipcc"), describe(t, t.nvcc, "nvcc")};
  const Install* hip = hip_install_in_use(c);
  if (c.hip_host() && !t.hipcc && hip) {
    auto& f = add(out, Category::toolkit, "toolkit.compiler", Verdict::warn,
                  "no hipcc on PATH although a toolkit is installed");
    f.evidence = ev;
    f.why = "building kernels, torch extensions or flash-attn needs hipcc; the toolkit's environment is not loaded";
    f.fix = use_install(named_install(c) ? *named_install(c) : *hip);  // the one the variables name, if any
    return;
  }
  std::string summary;
  if (t.hipcc) summary += "hipcc from " + (t.install_of(t.hipcc) ? t.install_of(t.hipcc)->path : t.hipcc->canonical);
  if (t.nvcc)
    summary += std::string(summary.empty() ? "" : "; ") + "nvcc from " +
               (t.install_of(t.nvcc) ? t.install_of(t.nvcc)->path : t.nvcc->canonical);
  add(out, Category::toolkit, "toolkit.compiler", Verdict::ok, summary.empty() ? "no hipcc or nvcc on PATH" : summary)
      .evidence = ev;
}

void runtime(const Context& c, std::vector<Finding>& out) {
  const auto& t = c.toolkits;
  std::vector<std::string> ev{describe(t, t.hip_runtime, "libamdhip64"), describe(t, t.cuda_runtime, "libcudart")};
  std::vector<std::string> order;
  for (const auto& d : t.loader_dirs) order.push_back(d.dir + " (" + d.via + ")");
  ev.push_back(fmt::format("the loader's search order: {}", fmt::join(order, ", ")));
  const Install* hip = hip_install_in_use(c);
  if (c.hip_host() && !t.hip_runtime && hip) {
    auto& f = add(out, Category::toolkit, "toolkit.runtime", Verdict::warn, "the loader finds no libamdhip64");
    f.evidence = ev;
    f.why =
        "programs and wheels linked against HIP fail to start ('libamdhip64.so: cannot open shared object file') "
        "unless an RPATH points at the toolkit";
    f.fix = use_install(*hip);
    return;
  }
  std::string summary;
  if (t.hip_runtime)
    summary += "libamdhip64 from " + t.hip_runtime->canonical.substr(0, t.hip_runtime->canonical.rfind('/'));
  if (t.cuda_runtime)
    summary += std::string(summary.empty() ? "" : "; ") + "libcudart from " +
               t.cuda_runtime->canonical.substr(0, t.cuda_runtime->canonical.rfind('/'));
  add(out, Category::toolkit, "toolkit.runtime", Verdict::ok,
      summary.empty() ? "no HIP or CUDA runtime on the loader's path" : summary)
      .evidence = ev;
}

void mismatch(const Context& c, std::vector<Finding>& out) {
  const auto& t = c.toolkits;
  struct Pair {
    const char* compiler;
    const char* library;
    const std::optional<Located>& cc;
    const std::optional<Located>& rt;
  };
  const Pair pairs[] = {{"hipcc", "libamdhip64", t.hipcc, t.hip_runtime},
                        {"nvcc", "libcudart", t.nvcc, t.cuda_runtime}};
  std::vector<std::string> ev;
  Verdict status = Verdict::ok;
  std::string summary, fix;
  int compared = 0, unknown = 0;
  for (const auto& p : pairs) {
    const Install* a = t.install_of(p.cc);
    const Install* b = t.install_of(p.rt);
    if (!p.cc || !p.rt) continue;
    ++compared;
    ev.push_back(describe(t, p.cc, p.compiler));
    ev.push_back(describe(t, p.rt, p.library));
    if (a == b && a) continue;  // one install: the same by their real paths
    if (!a && !b) {             // both outside every known install: nothing to say they match
      ++unknown;
      continue;
    }
    if (!a || !b) {  // one from an install, the other not (the distribution's /usr/bin/hipcc before ROCm's)
      const Install* in = a ? a : b;
      const Located& outside = a ? *p.rt : *p.cc;
      if (status == Verdict::ok) {
        status = Verdict::warn;
        summary = fmt::format("{} is {} ({}), {} is {} {} ({}): not the same install", a ? p.library : p.compiler,
                              outside.canonical.empty() ? outside.path : outside.canonical,
                              "in no DTK, ROCm or CUDA install", a ? p.compiler : p.library, to_string(in->kind),
                              in->version, in->path);
        fix = use_install(named_install(c) ? *named_install(c) : *in);
      }
      continue;
    }
    const bool same_version = !a->version.empty() && a->version == b->version;
    const Verdict s = same_version ? Verdict::warn : Verdict::fail;
    if (s == Verdict::fail || status == Verdict::ok) {
      status = s;
      summary = fmt::format("{} from {} {} ({}), {} from {} {} ({})", p.compiler, to_string(a->kind), a->version,
                            a->path, p.library, to_string(b->kind), b->version, b->path);
      fix = use_install(named_install(c) ? *named_install(c) : *b);  // the DTK the variables name, else the runtime's
    }
  }
  if (compared == 0) {
    add(out, Category::toolkit, "toolkit.mismatch", Verdict::skip, "no compiler and runtime pair to compare")
        .evidence = {describe(t, t.hipcc, "hipcc"), describe(t, t.hip_runtime, "libamdhip64"),
                     describe(t, t.nvcc, "nvcc"), describe(t, t.cuda_runtime, "libcudart")};
    return;
  }
  if (status == Verdict::ok && unknown == compared) {
    add(out, Category::toolkit, "toolkit.mismatch", Verdict::skip,
        "the compiler and the runtime are in no DTK, ROCm or CUDA install dcukit knows: not compared")
        .evidence = ev;
    return;
  }
  if (status == Verdict::ok) {
    add(out, Category::toolkit, "toolkit.mismatch", Verdict::ok, "compiler and runtime come from the same install")
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::toolkit, "toolkit.mismatch", status, summary);
  f.evidence = ev;
  f.why =
      "seed 004: compiled with one version, loading another version's libraries at run time gives operator "
      "incompatibilities and sudden slowdowns without an error";
  f.fix = fix;
}

}  // namespace

const Install* hip_install_in_use(const Context& c) {
  const auto& t = c.toolkits;
  if (const Install* rt = t.install_of(t.hip_runtime); rt && is_hip(*rt)) return rt;
  if (const Install* named = named_install(c)) return named;
  const Install* only = nullptr;
  for (const auto& in : t.installs)
    if (is_hip(in)) {
      if (only) return nullptr;
      only = &in;
    }
  return only;
}

void check_toolkits(const Context& c, std::vector<Finding>& out) {
  installs(c, out);
  environment(c, out);
  compiler(c, out);
  runtime(c, out);
  mismatch(c, out);
  check_driver_toolkit(c, out);
}

}  // namespace dcukit::doctor
