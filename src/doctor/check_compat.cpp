// toolkit.cuda_driver and toolkit.dcu_driver: the kernel driver against the toolkit in use, from
// the tables in data/ (cuda_compat.json: the CUDA release notes; dcu_compat.json: the pairs in
// specs.md). Seed 004: "内核驱动、DTK、PyTorch三者必须版本对齐" (driver, DTK and PyTorch must line up).
#include <fmt/format.h>

#include <set>

#include "doctor/checks.h"
#include "doctor/compat.h"
#include "doctor/driver_info.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

void cuda_driver(const Context& c, std::vector<Finding>& out) {
  const auto drv = c.nvidia();
  if (!drv.loaded || drv.version.empty()) {
    add(out, Category::toolkit, "toolkit.cuda_driver", Verdict::skip, "no NVIDIA driver version to compare").evidence =
        drv.evidence;
    return;
  }
  const auto& data = compat_data();
  const auto& t = c.toolkits;
  std::vector<std::pair<std::string, std::string>> runtimes;  // version, what
  if (t.cuda_runtime) {
    std::string v = library_version(t.cuda_runtime->canonical);
    if (version_numbers(v).size() < 2)
      if (const Install* in = t.install_of(t.cuda_runtime)) v = in->version;
    if (!v.empty()) runtimes.emplace_back(v, "libcudart " + t.cuda_runtime->canonical);
  }
  if (const Install* in = t.install_of(t.nvcc); in && !in->version.empty())
    runtimes.emplace_back(in->version, "nvcc's CUDA " + in->path);
  const std::string supported = cuda_of_driver(data, drv.version);
  std::vector<std::string> ev = drv.evidence;
  ev.push_back(fmt::format("driver {} supports CUDA up to {} (data/cuda_compat.json: {})", drv.version,
                           supported.empty() ? "(below the table)" : supported, data.cuda_source));
  if (runtimes.empty()) {
    add(out, Category::toolkit, "toolkit.cuda_driver", Verdict::ok,
        fmt::format("driver {} (CUDA up to {}); no CUDA runtime on the loader's path to compare", drv.version,
                    supported))
        .evidence = ev;
    return;
  }
  Verdict status = Verdict::ok;
  std::string worst;
  for (const auto& [v, what] : runtimes) {
    const CudaPair* rule = cuda_rule(data, v);
    ev.push_back(
        fmt::format("{}: CUDA {}{}", what, v, rule ? ", needs driver " + rule->min_driver : ", not in the table"));
    if (!rule || compare_versions(drv.version, rule->min_driver) >= 0) continue;
    Verdict s = Verdict::fail;
    for (const auto& m : data.cuda_minor_compat)
      if (version_has_prefix(v, m.cuda) && compare_versions(drv.version, m.min_driver) >= 0) s = Verdict::warn;
    if (status != Verdict::fail) {
      status = s;
      worst = fmt::format("CUDA {} runtime on driver {} (needs {})", v, drv.version, rule->min_driver);
    }
  }
  if (status == Verdict::ok) {
    add(out, Category::toolkit, "toolkit.cuda_driver", Verdict::ok,
        fmt::format("driver {} runs the CUDA runtime found", drv.version))
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::toolkit, "toolkit.cuda_driver", status, worst);
  f.evidence = ev;
  f.why = status == Verdict::fail
              ? "a CUDA runtime newer than the driver fails at its first call (cudaErrorInsufficientDriver)"
              : "it runs through minor-version compatibility, but PTX compiled for the newer release cannot be "
                "JIT-compiled "
                "and newer APIs fail";
  f.fix = fmt::format(
      "install an NVIDIA driver of at least the version needed (sudo apt install nvidia-driver-<branch>), "
      "or use a CUDA runtime of at most {}",
      supported.empty() ? "the driver's" : supported);
}

void dcu_driver(const Context& c, std::vector<Finding>& out) {
  const auto drv = hygon_driver(c.root);
  if (!c.has(core::Vendor::hygon)) {
    add(out, Category::toolkit, "toolkit.dcu_driver", Verdict::skip, "no Hygon DCU on this host");
    return;
  }
  const Install* dtk = hip_install_in_use(c);
  if (drv.module.empty() || drv.version.empty() || !dtk || dtk->version.empty()) {
    auto& f = add(out, Category::toolkit, "toolkit.dcu_driver", Verdict::skip,
                  drv.version.empty() ? "the DCU driver publishes no version (/sys/module/hycu/version)"
                                      : "no single DTK in use to compare with (see toolkit.env and toolkit.runtime)");
    f.evidence = drv.evidence;
    return;
  }
  const auto& data = compat_data();
  std::vector<std::string> ev = drv.evidence;
  ev.push_back(fmt::format("DTK in use: {} at {}", dtk->version, dtk->path));
  std::set<std::string> seen;
  Verdict status = Verdict::ok;
  std::string summary = fmt::format("driver {} with DTK {}", drv.version, dtk->version), fix;
  bool judged = false;
  for (const auto& g : c.scan.gpus) {
    if (g.vendor != core::Vendor::hygon || !seen.insert(g.isa() + "|" + g.name()).second) continue;
    const DcuPair* rule = dcu_rule(data, dtk->version, g.isa(), g.name());
    const std::string card = g.name().empty() ? (g.isa().empty() ? g.pci_id : g.isa()) : g.name();
    if (!rule) {
      ev.push_back(fmt::format("{}: no pair in data/dcu_compat.json for this card with DTK {}", card, dtk->version));
      continue;
    }
    judged = true;
    const bool ok = compare_versions(drv.version, rule->min_driver) >= 0;
    ev.push_back(fmt::format("{} ({}): DTK {} and later need driver >= {} ({}): {}", card, rule->card, rule->dtk,
                             rule->min_driver, rule->source, ok ? "met" : "NOT met"));
    if (!ok) {
      status = Verdict::fail;
      summary = fmt::format("driver {} is older than DTK {} needs on {} (>= {})", drv.version, dtk->version, rule->card,
                            rule->min_driver);
      fix = fmt::format(
          "install DCU driver {} or later (sudo bash rock-<version>.run; reboot), or use the DTK the "
          "driver was released with",
          rule->min_driver);
    }
  }
  if (!judged) {
    add(out, Category::toolkit, "toolkit.dcu_driver", Verdict::skip,
        fmt::format("no known driver/DTK pair for these cards with DTK {}", dtk->version))
        .evidence = ev;
    return;
  }
  auto& f = add(out, Category::toolkit, "toolkit.dcu_driver", status, summary);
  f.evidence = ev;
  if (status != Verdict::ok) {
    f.why =
        "seed 004: driver, DTK and PyTorch must line up; a DTK newer than its driver starts but misbehaves "
        "('能启动但性能异常')";
    f.fix = fix;
  }
}

}  // namespace

std::string library_version(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  const auto so = name.find(".so.");
  return so == std::string::npos ? std::string() : name.substr(so + 4);
}

void check_driver_toolkit(const Context& c, std::vector<Finding>& out) {
  cuda_driver(c, out);
  dcu_driver(c, out);
}

}  // namespace dcukit::doctor
