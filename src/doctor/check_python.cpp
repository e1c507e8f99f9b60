// python.*: the serving Python's stack, from stack::probe_python (a subprocess with a deadline):
// torch's build against the host's GPUs and runtime, whether it sees the devices and their real
// ISA, bf16, and the serving packages' builds. Seeds 000, 002 and 004 do these checks by hand
// (pip list | grep dtk, torch.version.hip, gcnArchName, is_bf16_supported).
#include <fmt/format.h>

#include <algorithm>

#include "doctor/checks.h"
#include "doctor/compat.h"
#include "doctor/driver_info.h"
#include "doctor/python_stack.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

using stack::BuildKind;
using stack::Package;
using stack::PythonStack;

constexpr const char* kChecks[] = {"python.torch", "python.torch_runtime", "python.cuda_available",
                                   "python.arch",  "python.bf16",          "python.packages"};

void skip_rest(std::vector<Finding>& out, const std::string& why) {
  for (const char* id : kChecks) add(out, Category::python, id, Verdict::skip, why);
}

std::string base_isa(std::string_view arch) {
  return std::string(arch.substr(0, arch.find(':')));
}

std::vector<std::string> torch_evidence(const PythonStack& s) {
  std::vector<std::string> ev;
  ev.push_back(fmt::format("torch.__version__: {}", s.torch.version.empty() ? "(none)" : s.torch.version));
  if (!s.torch.dist_version.empty() && s.torch.dist_version != s.torch.version)
    ev.push_back("installed distribution: torch " + s.torch.dist_version);
  ev.push_back(
      fmt::format("build tag: {} ({})", s.torch.tag.empty() ? "(none)" : s.torch.tag, stack::to_string(s.torch.kind)));
  ev.push_back(fmt::format("torch.version.cuda: {}; torch.version.hip: {}",
                           s.torch_cuda.empty() ? "None" : s.torch_cuda, s.torch_hip.empty() ? "None" : s.torch_hip));
  return ev;
}

void torch_build(const Context& c, const PythonStack& s, std::vector<Finding>& out) {
  const auto ev = torch_evidence(s);
  const TorchBuild b = torch_build_of(s);
  if (!s.torch.imported) {
    const bool installed = !s.torch.dist_version.empty();
    auto& f = add(out, Category::python, "python.torch", installed ? Verdict::fail : Verdict::warn,
                  installed ? "torch is installed but does not import" : "torch is not installed in " + s.interpreter);
    f.evidence = ev;
    f.evidence.push_back("import torch: " + s.torch.error);
    f.why = installed ? "a torch that does not import usually lacks the runtime libraries it was built for"
                      : "vLLM, lmdeploy and every model script need torch in the serving environment";
    f.fix = torch_install_command(c, s);
    return;
  }
  std::string problem;
  Verdict status = Verdict::ok;
  if (c.has(core::Vendor::hygon) && b != TorchBuild::dtk) {
    status = b == TorchBuild::rocm ? Verdict::warn : Verdict::fail;
    problem = fmt::format("a {} build of torch on a Hygon DCU host", to_string(b));
  } else if (c.hip_host() && (b == TorchBuild::cuda || b == TorchBuild::cpu)) {
    status = Verdict::fail;
    problem = fmt::format("a {} build of torch on an AMD GPU host", to_string(b));
  } else if (c.has(core::Vendor::nvidia) && !c.hip_host() &&
             (b == TorchBuild::rocm || b == TorchBuild::dtk || b == TorchBuild::cpu)) {
    status = Verdict::fail;
    problem = fmt::format("a {} build of torch on an NVIDIA host", to_string(b));
  }
  if (status == Verdict::ok) {
    add(out, Category::python, "python.torch", Verdict::ok,
        fmt::format("torch {} ({} build)", s.torch.version, to_string(b)))
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::python, "python.torch", status, problem);
  f.evidence = ev;
  f.why =
      c.has(core::Vendor::hygon)
          ? "seeds 000 and 004: a torch from the public index on a DCU host never sees the device (a plain 'pip "
            "install torch' fetches the CUDA build); Hygon's builds carry the DTK in their tag (+das...dtk2604)"
          : "this torch has no kernels for the GPUs of this host: torch.cuda.is_available() is False or kernels fail";
  f.fix = torch_install_command(c, s);
}

void torch_runtime(const Context& c, const PythonStack& s, std::vector<Finding>& out) {
  if (!s.torch.imported) {
    add(out, Category::python, "python.torch_runtime", Verdict::skip, "torch does not import");
    return;
  }
  std::vector<std::string> ev = torch_evidence(s);
  if (!s.torch_hip.empty()) {
    const Install* in = hip_install_in_use(c);
    if (!in) {
      add(out, Category::python, "python.torch_runtime", Verdict::skip,
          "no single DTK or ROCm in use to compare torch with")
          .evidence = ev;
      return;
    }
    ev.push_back(fmt::format("toolkit in use: {} {} at {}, HIP {}", to_string(in->kind), in->version, in->path,
                             in->hip_version.empty() ? "unknown" : in->hip_version));
    const std::string tag_dtk = dtk_of_tag(s.torch.tag);
    std::vector<std::string> problems;
    Verdict status = Verdict::ok;
    if (!in->hip_version.empty()) {
      const auto a = version_numbers(s.torch_hip), b = version_numbers(in->hip_version);
      if (!a.empty() && !b.empty() && a[0] != b[0]) {
        status = Verdict::fail;
        problems.push_back(
            fmt::format("torch is built for HIP {} but the toolkit has HIP {}", s.torch_hip, in->hip_version));
      } else if (a.size() > 1 && b.size() > 1 && a[1] != b[1]) {
        status = std::max(status, Verdict::warn);
        problems.push_back(fmt::format("torch's HIP {} and the toolkit's HIP {} differ in the minor version",
                                       s.torch_hip, in->hip_version));
      }
    }
    if (!tag_dtk.empty() && in->kind == ToolkitKind::dtk && !in->version.empty() &&
        !version_has_prefix(in->version, tag_dtk)) {
      const auto a = version_numbers(tag_dtk), b = version_numbers(in->version);
      const bool near = a.size() >= 2 && b.size() >= 2 && a[0] == b[0] && a[1] == b[1];
      if (!near)
        status = Verdict::fail;
      else if (status == Verdict::ok)
        status = Verdict::warn;
      problems.push_back(
          fmt::format("torch is built for DTK {} ({}) but DTK {} is in use", tag_dtk, s.torch.tag, in->version));
    }
    if (problems.empty()) {
      add(out, Category::python, "python.torch_runtime", Verdict::ok,
          fmt::format("torch's HIP {} matches {} {}", s.torch_hip, to_string(in->kind), in->version))
          .evidence = ev;
      return;
    }
    auto& f = add(out, Category::python, "python.torch_runtime", status, fmt::format("{}", fmt::join(problems, "; ")));
    f.evidence = ev;
    f.why =
        "seed 004: if the HIP version does not correspond to the DTK, numerical errors or abnormal performance "
        "follow ('HIP版本和DTK不对应，后续运行大概率会出现数值错误或者性能异常')";
    f.fix = torch_install_command(c, s) + "   # or: source the DTK torch was built for";
    return;
  }
  if (!s.torch_cuda.empty()) {
    const auto drv = c.nvidia();
    if (drv.version.empty()) {
      add(out, Category::python, "python.torch_runtime", Verdict::skip,
          "no NVIDIA driver version to compare torch's CUDA with")
          .evidence = ev;
      return;
    }
    const auto& data = compat_data();
    const CudaPair* rule = cuda_rule(data, s.torch_cuda);
    ev.push_back(fmt::format("NVIDIA driver {}; CUDA {} needs {}", drv.version, s.torch_cuda,
                             rule ? rule->min_driver : "(not in the table)"));
    if (!rule) {  // nothing to compare with: not a pass
      add(out, Category::python, "python.torch_runtime", Verdict::skip,
          fmt::format("torch's CUDA {} is not in data/cuda_compat.json: driver {} not compared", s.torch_cuda,
                      drv.version))
          .evidence = ev;
      return;
    }
    if (compare_versions(drv.version, rule->min_driver) >= 0) {
      add(out, Category::python, "python.torch_runtime", Verdict::ok,
          fmt::format("driver {} runs torch's CUDA {}", drv.version, s.torch_cuda))
          .evidence = ev;
      return;
    }
    Verdict status = Verdict::fail;
    for (const auto& m : data.cuda_minor_compat)
      if (version_has_prefix(s.torch_cuda, m.cuda) && compare_versions(drv.version, m.min_driver) >= 0)
        status = Verdict::warn;
    auto& f = add(out, Category::python, "python.torch_runtime", status,
                  fmt::format("torch's CUDA {} is newer than driver {} supports", s.torch_cuda, drv.version));
    f.evidence = ev;
    f.why = "torch wheels bring their own CUDA runtime; it needs a driver at least as new as itself";
    f.fix = torch_install_command(c, s);
    return;
  }
  add(out, Category::python, "python.torch_runtime", Verdict::skip, "a CPU build of torch has no GPU runtime")
      .evidence = ev;
}

void available(const Context& c, const PythonStack& s, std::vector<Finding>& out) {
  if (!s.torch.imported || !s.cuda_available) {
    add(out, Category::python, "python.cuda_available", Verdict::skip,
        "torch did not answer torch.cuda.is_available()");
    return;
  }
  const auto gpus = c.scan.gpus.size();
  std::vector<std::string> ev{fmt::format("torch.cuda.is_available(): {}; devices: {}",
                                          *s.cuda_available ? "True" : "False", s.devices.size())};
  for (const auto& d : s.devices) ev.push_back(fmt::format("torch device {}: {} ({})", d.index, d.name, d.arch));
  ev.push_back(fmt::format("GPUs on the PCI bus: {}", gpus));
  if (!*s.cuda_available && gpus > 0) {
    auto& f =
        add(out, Category::python, "python.cuda_available", Verdict::fail, "torch sees no GPU on a host that has them");
    f.evidence = ev;
    f.why =
        "seed 000: torch.cuda.is_available() is the first thing to check; without it every model runs on the CPU or "
        "fails";
    f.fix = "fix python.torch, driver.nodes and placement.visible_devices first; then: " + s.interpreter +
            " -c 'import torch; print(torch.cuda.is_available())'";
    return;
  }
  bool restricted = false;
  for (const char* v : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})
    restricted = restricted || c.env.count(v);
  if (*s.cuda_available && s.devices.size() < gpus && !restricted) {
    auto& f = add(out, Category::python, "python.cuda_available", Verdict::warn,
                  fmt::format("torch sees {} of {} GPUs", s.devices.size(), gpus));
    f.evidence = ev;
    f.why = "a GPU the runtime cannot open is missing from every job (a node without access, a card the driver failed)";
    f.fix = "dmesg | grep -iE 'hycu|hydcu|amdgpu|nvidia'   # and see driver.nodes";
    return;
  }
  add(out, Category::python, "python.cuda_available", *s.cuda_available ? Verdict::ok : Verdict::skip,
      *s.cuda_available ? fmt::format("torch sees {} device{}", s.devices.size(), s.devices.size() == 1 ? "" : "s")
                        : "torch sees no GPU, and there is none")
      .evidence = ev;
}

void arch(const Context& c, const PythonStack& s, std::vector<Finding>& out) {
  std::vector<std::string> real;
  for (const auto& g : c.scan.gpus)
    if (g.vendor != core::Vendor::nvidia && !g.isa().empty()) real.push_back(g.isa());
  std::vector<std::string> seen;
  for (const auto& d : s.devices)
    if (starts_with(d.arch, "gfx")) seen.push_back(base_isa(d.arch));
  if (seen.empty() || real.empty()) {
    add(out, Category::python, "python.arch", Verdict::skip,
        seen.empty() ? "torch reports no gcnArchName (no HIP device seen)"
                     : "the cards' ISA is not published here (KFD topology)");
    return;
  }
  std::vector<std::string> ev;
  for (const auto& d : s.devices) ev.push_back(fmt::format("torch device {}: gcnArchName {}", d.index, d.arch));
  for (const auto& g : c.scan.gpus)
    if (!g.isa().empty()) ev.push_back(fmt::format("{}: ISA {} (/sys/class/kfd/kfd/topology)", g.bus_id, g.isa()));
  const std::string override_gfx = c.getenv("HSA_OVERRIDE_GFX_VERSION");
  if (!override_gfx.empty()) ev.push_back("HSA_OVERRIDE_GFX_VERSION=" + override_gfx);
  auto unique = [](std::vector<std::string>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  unique(real);
  unique(seen);
  std::vector<std::string> wrong;
  for (const auto& a : seen)
    if (std::find(real.begin(), real.end(), a) == real.end()) wrong.push_back(a);
  if (wrong.empty()) {
    add(out, Category::python, "python.arch", Verdict::ok,
        fmt::format("torch's arch matches the cards ({})", fmt::join(real, ", ")))
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::python, "python.arch", Verdict::fail,
                fmt::format("torch reports {} but the cards are {}", fmt::join(wrong, ", "), fmt::join(real, ", ")));
  f.evidence = ev;
  f.why =
      "seed 004: if the arch name is wrong, numerical errors or abnormal performance follow; kernels built for "
      "another ISA run wrong or not at all";
  f.fix = override_gfx.empty() ? torch_install_command(c, s) : "unset HSA_OVERRIDE_GFX_VERSION";
}

void bf16(const PythonStack& s, std::vector<Finding>& out) {
  if (!s.bf16_supported) {
    add(out, Category::python, "python.bf16", Verdict::skip,
        s.bf16_error.empty() ? "torch did not answer is_bf16_supported() (no device)"
                             : "is_bf16_supported() raised: " + s.bf16_error);
    return;
  }
  const std::string ev = fmt::format("torch.cuda.is_bf16_supported(): {}", *s.bf16_supported ? "True" : "False");
  if (*s.bf16_supported) {
    add(out, Category::python, "python.bf16", Verdict::ok, "the card does bf16").evidence = {ev};
    return;
  }
  auto& f = add(out, Category::python, "python.bf16", Verdict::warn, "the card does not do bf16");
  f.evidence = {ev};
  f.why = "seed 002: early Z100 batches and K100 support only FP16; a bf16 checkpoint must be served as fp16";
  f.fix = "vllm serve ... --dtype float16   # dcukit plan chooses it for you";
}

}  // namespace

void check_python(const Context& c, std::vector<Finding>& out) {
  if (!c.python) {
    add(out, Category::python, "python.interpreter", Verdict::skip, c.python_skip);
    skip_rest(out, "the Python probe was not run");
    return;
  }
  if (!c.python->ok()) {
    auto& f = add(out, Category::python, "python.interpreter", Verdict::fail, "the Python probe failed");
    f.evidence = {c.python->error().message};
    f.why = "the serving environment's Python must start and import its packages within a minute";
    f.fix =
        "run the interpreter by hand to see the error, or name the serving one: dcukit doctor --python "
        "/path/to/venv/bin/python3";
    skip_rest(out, "the Python probe did not answer");
    return;
  }
  const auto& s = **c.python;
  add(out, Category::python, "python.interpreter", Verdict::ok,
      fmt::format("Python {} at {}", s.python_version, s.interpreter))
      .evidence = {"probe answered: " + s.interpreter};
  torch_build(c, s, out);
  torch_runtime(c, s, out);
  available(c, s, out);
  arch(c, s, out);
  bf16(s, out);
  check_packages(c, s, out);
}

}  // namespace dcukit::doctor
