#include "doctor/python_stack.h"

#include <fmt/format.h>

#include "doctor/checks.h"
#include "doctor/compat.h"
#include "doctor/driver_info.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

using stack::BuildKind;

// The CUDA variants download.pytorch.org publishes wheels for.
constexpr std::pair<const char*, const char*> kCudaWheels[] = {{"11.8", "cu118"}, {"12.1", "cu121"}, {"12.4", "cu124"},
                                                               {"12.6", "cu126"}, {"12.8", "cu128"}, {"12.9", "cu129"},
                                                               {"13.0", "cu130"}};

std::string cp_tag(const std::string& python_version) {
  const auto n = version_numbers(python_version);
  return n.size() >= 2 ? fmt::format("cp{}{}", n[0], n[1]) : "cp3*";
}

std::string describe(const stack::Package& p) {
  std::string s = p.name + ": ";
  if (p.imported)
    s += p.version.empty() ? "(no __version__)" : p.version;
  else
    s += p.dist_version.empty() ? "not installed" : "installed " + p.dist_version + ", does not import";
  if (!p.tag.empty()) s += fmt::format("; tag {} ({})", p.tag, stack::to_string(p.kind));
  if (!p.error.empty() && !p.dist_version.empty()) s += "; " + p.error;
  return s;
}

}  // namespace

std::string_view to_string(TorchBuild b) {
  return util::name_of(kTorchBuildNames, b);
}

TorchBuild torch_build_of(const stack::PythonStack& s) {
  switch (s.torch.kind) {
    case BuildKind::dtk:
      return TorchBuild::dtk;
    case BuildKind::rocm:
      return TorchBuild::rocm;
    case BuildKind::cuda:
      return TorchBuild::cuda;
    case BuildKind::cpu:
      return TorchBuild::cpu;
    case BuildKind::none:
    case BuildKind::other:
      break;
  }
  if (!s.torch_hip.empty()) return TorchBuild::rocm;
  if (!s.torch_cuda.empty()) return TorchBuild::cuda;
  return TorchBuild::cpu;
}

std::string dtk_tag_of(std::string_view dtk_version) {
  const auto n = version_numbers(dtk_version);
  if (n.size() < 2) return "dtk";
  std::string t = fmt::format("dtk{:02d}{:02d}", n[0] % 100, n[1]);
  for (std::size_t i = 2; i < n.size(); ++i) t += std::to_string(n[i]);
  return t;
}

std::string torch_install_command(const Context& c, const stack::PythonStack& s) {
  const std::string py = s.interpreter.empty() ? "python3" : s.interpreter;
  if (c.has(core::Vendor::hygon)) {
    const Install* dtk = hip_install_in_use(c);
    const std::string tag = dtk && !dtk->version.empty() ? dtk_tag_of(dtk->version) : "dtk<your DTK>";
    return fmt::format(
        "{0} -m pip uninstall -y torch && {0} -m pip install ./torch-*{1}*-{2}-*.whl   # Hygon's build for "
        "DTK {3}, from https://download.sourcefind.cn:65024/directlink/4/pytorch/ (Hygon developer community)",
        py, tag, cp_tag(s.python_version), dtk ? dtk->version : "(the one in use)");
  }
  if (c.hip_host()) {
    const Install* rocm = hip_install_in_use(c);
    const std::string v = rocm && !rocm->version.empty() ? major_minor(rocm->version) : "6.2";
    return fmt::format("{} -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/rocm{}",
                       py, v);
  }
  if (c.has(core::Vendor::nvidia)) {
    const auto drv = c.nvidia();
    const std::string cuda = drv.version.empty() ? "" : cuda_of_driver(compat_data(), drv.version);
    std::string variant = "cu124";
    for (const auto& [v, name] : kCudaWheels)
      if (!cuda.empty() && compare_versions(v, cuda) <= 0) variant = name;
    return fmt::format("{} -m pip install --force-reinstall torch --index-url https://download.pytorch.org/whl/{}", py,
                       variant);
  }
  return fmt::format("{} -m pip install torch", py);
}

void check_packages(const Context& c, const stack::PythonStack& s, std::vector<Finding>& out) {
  const std::string torch_dtk = dtk_of_tag(s.torch.tag);
  const std::string torch_version = s.torch.imported ? major_minor(s.torch.version) : "";
  for (const auto& p : s.packages) {
    const std::vector<std::string> ev{describe(p),
                                      "torch: " + (s.torch.version.empty() ? std::string("(none)") : s.torch.version)};
    auto finding = [&](Verdict st, std::string summary) -> Finding& {
      auto& f = add(out, Category::python, "python.packages", st, std::move(summary));
      f.subject = p.name;
      f.evidence = ev;
      return f;
    };
    if (!p.imported && p.dist_version.empty()) {
      finding(Verdict::skip, p.name + " is not installed");
      continue;
    }
    const std::string reinstall =
        fmt::format("{} -m pip install --force-reinstall <the {} wheel built for this torch{}>", s.interpreter, p.name,
                    c.has(core::Vendor::hygon) ? " and DTK (a +das...dtkNNNN build)" : "");
    if (!p.imported) {
      auto& f = finding(Verdict::fail, fmt::format("{} {} is installed but does not import", p.name, p.dist_version));
      f.why = "an extension built against another torch or runtime fails at import (undefined symbol, missing .so)";
      f.fix = reinstall;
      continue;
    }
    std::vector<std::string> problems;
    Verdict status = Verdict::ok;
    if (c.hip_host() && p.kind == BuildKind::cuda) {
      status = Verdict::fail;
      problems.push_back("a CUDA build on a DCU/AMD host");
    } else if (c.has(core::Vendor::nvidia) && !c.hip_host() &&
               (p.kind == BuildKind::rocm || p.kind == BuildKind::dtk)) {
      status = Verdict::fail;
      problems.push_back("a ROCm/DTK build on an NVIDIA host");
    } else if (c.has(core::Vendor::hygon) && p.kind != BuildKind::dtk) {
      status = Verdict::warn;
      problems.push_back("not Hygon's build (no das/dtk tag)");
    }
    const std::string pkg_dtk = dtk_of_tag(p.tag);
    if (!pkg_dtk.empty() && !torch_dtk.empty() && major_minor(pkg_dtk) != major_minor(torch_dtk)) {
      status = Verdict::fail;
      problems.push_back(fmt::format("built for DTK {} while torch is for DTK {}", pkg_dtk, torch_dtk));
    }
    const std::string pkg_torch = torch_of_tag(p.tag);
    if (!pkg_torch.empty() && !torch_version.empty() && major_minor(pkg_torch) != torch_version) {
      status = Verdict::fail;
      problems.push_back(fmt::format("built against torch {} while torch {} is installed", pkg_torch, s.torch.version));
    }
    if (problems.empty()) {
      finding(Verdict::ok, fmt::format("{} {}", p.name, p.version));
      continue;
    }
    auto& f = finding(status, fmt::format("{} {}: {}", p.name, p.version, fmt::join(problems, "; ")));
    f.why =
        "seed 000: every package installs, yet they do not work together; Triton, flash-attn and custom "
        "extensions must be built for the same torch and DTK ('每个包都可以正常安装但是彼此之间却不能兼容')";
    f.fix = reinstall;
  }
}

}  // namespace dcukit::doctor
