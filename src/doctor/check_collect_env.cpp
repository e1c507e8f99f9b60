// doctor --from FILE: the checks that a pasted collect_env can answer. Its facts become a Context
// (the GPUs it lists, the driver it states, the Python stack it describes) and the live checks of
// the Python stack run on it unchanged; the facts only a paste shows add five more: vLLM's build
// against torch's, vLLM's torch requirement, nvcc against torch's CUDA (and a CUDA nvcc on a ROCm
// host), two cuDNN, and a missing vllm._C.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <optional>
#include <set>

#include "doctor/checks.h"
#include "doctor/collect_env.h"
#include "doctor/compat.h"
#include "doctor/run.h"
#include "util/files.h"
#include "util/text.h"
#include "util/regex.h"

namespace dcukit::doctor {
namespace {

/// The vendor a GPU's name names, if any.
std::optional<core::Vendor> vendor_by_name(const std::string& name) {
  if (util::icontains(name, "hygon") || util::icontains(name, "dcu") || util::icontains(name, "k100") ||
      util::icontains(name, "z100") || util::icontains(name, "bw1000"))
    return core::Vendor::hygon;
  if (util::icontains(name, "amd") || util::icontains(name, "instinct") || util::icontains(name, "radeon") ||
      util::icontains(name, "(gfx"))
    return core::Vendor::amd;
  if (util::icontains(name, "nvidia") || util::icontains(name, "tesla") || util::icontains(name, "geforce") ||
      util::icontains(name, "quadro") || util::icontains(name, "rtx") || util::icontains(name, "gtx"))
    return core::Vendor::nvidia;
  return std::nullopt;
}

/// The vendor a GPU's name says, else what the paste's runtime lines say (ROCm's "Device 66a1").
std::optional<core::Vendor> vendor_of(const std::string& name, const CollectEnv& e) {
  if (auto v = vendor_by_name(name)) return v;
  if (!e.get("HIP runtime version").empty() || !e.get("ROCM used to build PyTorch").empty()) return core::Vendor::amd;
  if (!e.get("Nvidia driver version").empty()) return core::Vendor::nvidia;
  return std::nullopt;
}

/// vLLM's CUDA wheels pin one torch (requirements-cuda.txt / requirements/cuda.txt at each tag):
/// the first vLLM release of each pin.
struct TorchPin {
  const char* vllm;
  const char* torch;
};
constexpr TorchPin kTorchPins[] = {
    {"0.2.0", "2.0"}, {"0.2.2", "2.1"}, {"0.4.1", "2.2"}, {"0.4.2", "2.3"}, {"0.5.4", "2.4"},
    {"0.6.4", "2.5"}, {"0.8.0", "2.6"}, {"0.9.0", "2.7"}, {"0.10.2", "2.8"}, {"0.11.1", "2.9"},
};

void vllm_torch(const stack::PythonStack& s, std::vector<Finding>& out) {
  const auto* vllm = s.find("vllm");
  if (!vllm || vllm->version.empty() || !s.torch.imported) {
    add(out, Category::python, "python.vllm_torch", Verdict::skip, "no vLLM and torch versions to compare");
    return;
  }
  const char* pin = nullptr;
  for (const auto& p : kTorchPins)
    if (compare_versions(vllm->version, p.vllm) >= 0) pin = p.torch;
  std::vector<std::string> ev{"vLLM Version: " + vllm->version, "PyTorch version: " + s.torch.version};
  if (!pin) {
    add(out, Category::python, "python.vllm_torch", Verdict::skip,
        fmt::format("vLLM {} is older than the pins dcukit knows", vllm->version))
        .evidence = ev;
    return;
  }
  ev.push_back(fmt::format("vLLM {}'s wheel is built against torch {}", vllm->version, pin));
  const std::string have = major_minor(s.torch.version);
  if (have == pin) {
    add(out, Category::python, "python.vllm_torch", Verdict::ok, fmt::format("torch {} as vLLM {} needs", have, vllm->version))
        .evidence = ev;
    return;
  }
  const bool older = compare_versions(have, pin) < 0;
  auto& f = add(out, Category::python, "python.vllm_torch", Verdict::fail,
                fmt::format("vLLM {} needs torch {}, torch {} is installed", vllm->version, pin, s.torch.version));
  f.evidence = ev;
  f.why = older ? "vLLM's compiled ops (vllm._C) are linked against that torch: an older one does not load them"
                : "vLLM's compiled ops are linked against one torch's ABI; a newer torch fails at import (undefined "
                  "symbol) or in the first kernel";
  f.fix = fmt::format("pip install 'torch=={}.*'   # or the vLLM release built for torch {}", pin, have);
}

void nvcc(const CollectEnv& e, const stack::PythonStack& s, std::vector<Finding>& out) {
  // collect_env's "CUDA runtime version" is `nvcc --version` of the nvcc on PATH.
  const std::string nvcc_v = e.get("CUDA runtime version");
  if (nvcc_v.empty()) {
    add(out, Category::toolkit, "toolkit.nvcc_torch", Verdict::skip, "no nvcc on PATH in the paste");
    return;
  }
  std::vector<std::string> ev{"CUDA runtime version (nvcc on PATH): " + nvcc_v};
  if (!s.torch_hip.empty() || s.torch.kind == stack::BuildKind::rocm || s.torch.kind == stack::BuildKind::dtk) {
    ev.push_back("ROCM used to build PyTorch: " + s.torch_hip);
    auto& f = add(out, Category::toolkit, "toolkit.nvcc_torch", Verdict::warn,
                  fmt::format("a CUDA nvcc {} is on PATH of a ROCm/DTK stack", nvcc_v));
    f.evidence = ev;
    f.why = "extensions built here (flash-attn, vLLM from source) pick nvcc before hipcc and build for the wrong GPU";
    f.fix = "remove /usr/local/cuda/bin from PATH (and CUDA_HOME) in the serving environment";
    return;
  }
  if (s.torch_cuda.empty()) {
    add(out, Category::toolkit, "toolkit.nvcc_torch", Verdict::skip, "torch states no CUDA to compare nvcc with")
        .evidence = ev;
    return;
  }
  ev.push_back("CUDA used to build PyTorch: " + s.torch_cuda);
  const auto a = version_numbers(nvcc_v), b = version_numbers(s.torch_cuda);
  if (a.size() < 2 || b.size() < 2 || (a[0] == b[0] && a[1] == b[1])) {
    add(out, Category::toolkit, "toolkit.nvcc_torch", Verdict::ok, fmt::format("nvcc {} and torch's CUDA {}", nvcc_v, s.torch_cuda))
        .evidence = ev;
    return;
  }
  if (a[0] == b[0]) {  // torch's cpp_extension warns on a minor difference and builds ("shouldn't be a problem")
    add(out, Category::toolkit, "toolkit.nvcc_torch", Verdict::ok,
        fmt::format("nvcc {} and torch's CUDA {}: the same major, which torch's extension build accepts", nvcc_v,
                    s.torch_cuda))
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::toolkit, "toolkit.nvcc_torch", Verdict::fail,
                fmt::format("nvcc is CUDA {} but torch is built with CUDA {}", nvcc_v, s.torch_cuda));
  f.evidence = ev;
  f.why = "torch's cpp_extension refuses a CUDA major other than torch's: extensions (flash-attn, vLLM from source) do not build";
  f.fix = fmt::format("put CUDA {}'s nvcc first on PATH (export CUDA_HOME=/usr/local/cuda-{})", s.torch_cuda,
                      major_minor(s.torch_cuda));
}

void cudnn(const CollectEnv& e, std::vector<Finding>& out) {
  static const util::Regex kVersion(R"(libcudnn[a-z_]*\.so\.(\d+(\.\d+)*))");
  std::set<std::string> versions;
  for (const auto& c : e.cudnn) {
    util::Match m;
    if (kVersion.search(c, &m)) versions.insert(m[1].str());
  }
  std::set<int> majors;
  for (const auto& v : versions)
    if (auto n = version_numbers(v); !n.empty()) majors.insert(n[0]);
  if (majors.size() <= 1) {
    add(out, Category::toolkit, "toolkit.cudnn", e.cudnn.empty() ? Verdict::skip : Verdict::ok,
        e.cudnn.empty() ? "no cuDNN listed" : fmt::format("cuDNN {}", fmt::join(versions, ", ")))
        .evidence = e.cudnn;
    return;
  }
  auto& f = add(out, Category::toolkit, "toolkit.cudnn", Verdict::warn,
                fmt::format("two cuDNN versions on the loader's path: {}", fmt::join(versions, ", ")));
  f.evidence = e.cudnn;
  f.why = "whichever the loader finds first is used: torch built for one cuDNN may load the other and fail in convolutions";
  f.fix = "remove the system cuDNN that torch does not use, or order LD_LIBRARY_PATH so torch's own comes first";
}

void vllm_ops(const CollectEnv& e, const stack::PythonStack& s, std::vector<Finding>& out) {
  std::vector<std::string> errs;
  for (const auto& err : e.import_errors)
    if (err.find("vllm._C") != std::string::npos || err.find("vllm/_C") != std::string::npos) errs.push_back(err);
  if (errs.empty()) {
    add(out, Category::python, "python.vllm_ops", s.find("vllm") ? Verdict::ok : Verdict::skip,
        s.find("vllm") ? "no import error of vLLM's compiled ops in the paste" : "no vLLM in the paste");
    return;
  }
  auto& f = add(out, Category::python, "python.vllm_ops", Verdict::fail, "vLLM's compiled ops (vllm._C) do not import");
  f.evidence = errs;
  f.why = "a vLLM imported from its source tree without a build, or a wheel for another torch/CUDA: no kernel runs";
  f.fix = "pip install vllm (the wheel for this torch), or build it: pip install -e . --no-build-isolation";
}

}  // namespace

Result<Report> run_from_collect_env(const std::string& path, const Request& r) {
  auto text = util::read_file(path, util::kCollectEnvInput);
  if (!text) return Error{fmt::format("--from {}: {}", path, text.error().message)};
  auto env = parse_collect_env(*text, path);
  if (!env) return env.error();
  Report report;
  report.run_info = core::collect_run_info("dcukit doctor", r.command);
  report.root = "collect_env " + path;
  Context c;
  c.root = util::Root("/nonexistent-root-of-a-paste");
  c.offline = true;
  std::vector<std::string> unknown;
  for (const auto& name : env->gpus) {
    const auto vendor = vendor_of(name, *env);
    if (!vendor) {
      unknown.push_back(name);
      continue;
    }
    Gpu g;
    g.vendor = *vendor;
    g.state.name = name.substr(0, name.find(" ("));
    if (const auto open = name.find("(gfx"); open != std::string::npos)
      g.state.arch = name.substr(open + 1, name.find_first_of(":)", open) - open - 1);
    c.scan.gpus.push_back(std::move(g));
  }
  if (const auto drv = env->get("Nvidia driver version"); !drv.empty()) {
    c.stated_nvidia = ModuleState{true, drv, {"Nvidia driver version: " + drv + " (the paste)"}};
    if (c.scan.gpus.empty()) c.scan.gpus.push_back(Gpu{});  // an NVIDIA GPU, unnamed
  }
  c.scan.source = "the GPUs collect_env listed";
  const auto s = stack_of(*env);
  c.python = Result<stack::PythonStack>(s);
  auto& out = report.findings;
  if (!unknown.empty())
    add(out, Category::driver, "driver.gpus", Verdict::warn,
        fmt::format("the paste names GPUs of no vendor dcukit can tell: {}", fmt::join(unknown, ", ")));
  else if (c.scan.gpus.empty())
    add(out, Category::driver, "driver.gpus", Verdict::warn, "the paste lists no GPU and no driver").evidence = {
        "GPU models and configuration: " + env->get("GPU models and configuration")};
  check_python(c, out);
  vllm_torch(s, out);
  vllm_ops(*env, s, out);
  nvcc(*env, s, out);
  cudnn(*env, out);
  return report;
}

}  // namespace dcukit::doctor
