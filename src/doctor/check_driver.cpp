// driver.*: the GPUs on the PCI bus and the kernel driver bound to each; the NVIDIA, amdgpu and
// Hygon (hydcu up to 6.2, hycu from 6.3) modules and their versions; the device nodes the
// runtimes open and whether this user may open them (seeds 000 and 002: lsmod | grep hydcu,
// modinfo hydcu; hy-smi's "Permission denied" without /dev/kfd and /dev/dri).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "doctor/checks.h"
#include "doctor/driver_info.h"
#include "doctor/text.h"

namespace dcukit::doctor {
namespace {

void gpus(const Context& c, std::vector<Finding>& out) {
  if (!c.scan.sysfs_present) {
    add(out, Category::driver, "driver.gpus", Verdict::skip,
        "/sys/bus/pci/devices is absent (a container without sysfs?): the GPUs cannot be listed");
    return;
  }
  std::vector<std::string> ev, unbound;
  for (const auto& g : c.scan.gpus) {
    ev.push_back(fmt::format("/sys/bus/pci/devices/{}: {} {}{}, driver {}", g.bus_id, core::to_string(g.vendor),
                             g.pci_id, g.name().empty() ? "" : " (" + g.name() + ")",
                             g.driver.empty() ? "none" : g.driver));
    if (g.driver.empty()) unbound.push_back(g.bus_id);
  }
  if (c.scan.gpus.empty()) {
    auto& f = add(out, Category::driver, "driver.gpus", Verdict::warn, "no NVIDIA, AMD or Hygon GPU on the PCI bus");
    f.evidence = {
        "/sys/bus/pci/devices: no display, co-processor or accelerator function of vendor 10de, 1002 or 1d94"};
    f.why = "nothing below can run on a GPU; in a container the GPUs may be hidden from sysfs";
    f.fix = "lspci -nn | grep -iE 'vga|3d|co-processor|accelerator'   # is the card seen by the host at all?";
    return;
  }
  if (!unbound.empty()) {
    auto& f = add(out, Category::driver, "driver.gpus", Verdict::fail,
                  fmt::format("{} of {} GPUs have no kernel driver bound", unbound.size(), c.scan.gpus.size()));
    f.evidence = ev;
    f.why = "a GPU without a driver is invisible to every runtime: no /dev node, no device in torch";
    f.fix = "dmesg | grep -iE 'hycu|hydcu|amdgpu|nvidia'   # why the driver did not take it; then load the driver";
    return;
  }
  add(out, Category::driver, "driver.gpus", Verdict::ok,
      fmt::format("{} GPU{}, each with its driver", c.scan.gpus.size(), c.scan.gpus.size() == 1 ? "" : "s"))
      .evidence = ev;
}

void nvidia(const Context& c, std::vector<Finding>& out) {
  const auto drv = c.nvidia();
  if (!c.has(core::Vendor::nvidia) && !drv.loaded) {
    add(out, Category::driver, "driver.nvidia", Verdict::skip, "no NVIDIA GPU on this host");
    return;
  }
  if (!drv.loaded) {
    auto& f =
        add(out, Category::driver, "driver.nvidia", Verdict::fail, "NVIDIA GPU present, nvidia module not loaded");
    f.evidence = drv.evidence;
    f.why = "CUDA needs the nvidia kernel module; without it nvidia-smi and every CUDA program fail";
    f.fix = "sudo modprobe nvidia   # or install the driver: sudo apt install nvidia-driver-<version>";
    return;
  }
  add(out, Category::driver, "driver.nvidia", Verdict::ok,
      "nvidia " + (drv.version.empty() ? std::string("(version unknown)") : drv.version) + " loaded")
      .evidence = drv.evidence;
}

void amdgpu(const Context& c, std::vector<Finding>& out) {
  const auto m = module_state(c.root, "amdgpu");
  if (!c.has(core::Vendor::amd)) {
    add(out, Category::driver, "driver.amdgpu", Verdict::skip, "no AMD GPU on this host");
    return;
  }
  if (!m.loaded) {
    auto& f = add(out, Category::driver, "driver.amdgpu", Verdict::fail, "AMD GPU present, amdgpu not loaded");
    f.evidence = m.evidence;
    f.why = "ROCm reaches AMD GPUs only through amdgpu and /dev/kfd";
    f.fix = "sudo modprobe amdgpu   # or install amdgpu-dkms from the ROCm repository";
    return;
  }
  add(out, Category::driver, "driver.amdgpu", Verdict::ok,
      "amdgpu loaded" + (m.version.empty() ? std::string(" (in-kernel)") : " " + m.version))
      .evidence = m.evidence;
}

void hygon(const Context& c, std::vector<Finding>& out) {
  const auto d = hygon_driver(c.root);
  if (!c.has(core::Vendor::hygon) && d.module.empty()) {
    add(out, Category::driver, "driver.hygon", Verdict::skip, "no Hygon DCU on this host");
    return;
  }
  if (d.module.empty()) {
    auto& f =
        add(out, Category::driver, "driver.hygon", Verdict::fail, "Hygon DCU present, neither hycu nor hydcu loaded");
    f.evidence = d.evidence;
    f.why =
        "the DCU runtime (DTK) reaches the cards only through Hygon's kernel driver (hydcu up to 6.2, hycu from 6.3)";
    f.fix = "sudo modprobe hycu   # hydcu for drivers up to 6.2; or reinstall the driver: sudo bash rock-<version>.run";
    return;
  }
  if (d.both) {
    auto& f = add(out, Category::driver, "driver.hygon", Verdict::warn, "both hycu and hydcu are loaded");
    f.evidence = d.evidence;
    f.why = "two generations of the DCU driver at once: an upgrade left the old module behind";
    f.fix = "sudo rmmod hydcu   # then reboot to be sure only hycu binds the cards";
    return;
  }
  const int major_minor = d.version.empty() ? 0 : [&] {
    const auto n = split(d.version, '.', Empties::skip);
    return n.size() >= 2 ? static_cast<int>(parse_int(n[0]).value_or(0) * 100 + parse_int(n[1]).value_or(0)) : 0;
  }();
  if (major_minor > 0 && ((d.module == "hydcu" && major_minor >= 603) || (d.module == "hycu" && major_minor < 603))) {
    auto& f = add(out, Category::driver, "driver.hygon", Verdict::warn,
                  fmt::format("{} {} loaded: that module name does not belong to that version", d.module, d.version));
    f.evidence = d.evidence;
    f.why = "hydcu is the module of drivers up to 6.2 and hycu of 6.3 on; a mismatch means a half-finished upgrade";
    f.fix = "reinstall the driver package (sudo bash rock-<version>.run) and reboot";
    return;
  }
  add(out, Category::driver, "driver.hygon", Verdict::ok,
      d.module + " " + (d.version.empty() ? std::string("(version unknown)") : d.version) + " loaded")
      .evidence = d.evidence;
}

bool can_open(const Identity& id, const util::FileInfo& st) {
  if (id.uid == 0) return true;
  if (st.uid == id.uid) return (st.mode & 0600) == 0600;
  for (unsigned g : id.gids)
    if (g == st.gid) return (st.mode & 0060) == 0060;
  return (st.mode & 0006) == 0006;
}

struct NodeView {
  std::string path;
  std::optional<util::FileInfo> st;
  bool ok = false;
};

std::vector<NodeView> expected_nodes(const Context& c) {
  std::vector<std::string> paths;
  if (c.hip_host() || c.has(core::Vendor::amd) || c.has(core::Vendor::hygon)) {
    paths.push_back("/dev/kfd");
    for (const auto& g : c.scan.gpus)
      if (g.vendor != core::Vendor::nvidia)
        for (const auto& n : g.nodes)
          if (starts_with(n, "renderD")) paths.push_back("/dev/dri/" + n);
  }
  if (c.has(core::Vendor::nvidia)) {
    paths.push_back("/dev/nvidiactl");
    paths.push_back("/dev/nvidia-uvm");
    auto nv = c.root.glob("/dev", "nvidia[0-9]*");
    if (nv.empty()) paths.push_back("/dev/nvidia0");
    for (const auto& n : nv) paths.push_back("/dev/" + n);
  }
  std::vector<NodeView> out;
  for (auto& p : paths) {
    NodeView v;
    v.path = p;
    v.st = c.stat(p);
    v.ok = v.st && can_open(c.identity, *v.st);
    out.push_back(std::move(v));
  }
  return out;
}

std::string describe(const NodeView& v, const std::map<unsigned, std::string>& groups) {
  if (!v.st) return v.path + ": absent";
  auto g = groups.find(v.st->gid);
  return fmt::format("{}: mode {:04o}, owner uid {}, group {}", v.path, v.st->mode, v.st->uid,
                     g == groups.end() ? std::to_string(v.st->gid) : fmt::format("{}({})", g->second, v.st->gid));
}

void nodes(const Context& c, std::vector<Finding>& out) {
  const auto views = expected_nodes(c);
  if (views.empty()) {
    add(out, Category::driver, "driver.nodes", Verdict::skip, "no GPU, so no device node to look for");
    add(out, Category::driver, "driver.groups", Verdict::skip, "no GPU, so no device node to belong to");
    return;
  }
  const auto names = group_names(c.root);
  std::vector<std::string> ev, absent, denied;
  for (const auto& v : views) {
    ev.push_back(describe(v, names));
    if (!v.st)
      absent.push_back(v.path);
    else if (!v.ok)
      denied.push_back(v.path);
  }
  const std::string who = fmt::format("{} (uid {})", c.identity.user, c.identity.uid);
  if (!absent.empty()) {
    auto& f =
        add(out, Category::driver, "driver.nodes", Verdict::fail, fmt::format("absent: {}", fmt::join(absent, ", ")));
    f.evidence = ev;
    f.why = "the runtimes open these nodes; absent with the driver loaded means a container started without them";
    f.fix =
        c.has(core::Vendor::nvidia)
            ? "docker run --gpus all ...   # or --device=/dev/nvidia0 --device=/dev/nvidiactl --device=/dev/nvidia-uvm"
            : "docker run --device=/dev/kfd --device=/dev/dri --group-add video ...   # or load the driver on the host";
  } else if (!denied.empty()) {
    auto& f = add(out, Category::driver, "driver.nodes", Verdict::fail,
                  fmt::format("{} may not open {}", who, fmt::join(denied, ", ")));
    f.evidence = ev;
    f.why =
        "without read and write access the runtime sees no device (hy-smi says 'Permission denied', torch finds none)";
    f.fix = fmt::format("sudo usermod -aG video,render {}   # then log in again", c.identity.user);
  } else {
    add(out, Category::driver, "driver.nodes", Verdict::ok,
        fmt::format("{} node{} present and open to {}", views.size(), views.size() == 1 ? "" : "s", who))
        .evidence = ev;
  }

  std::set<unsigned> owning;
  for (const auto& v : views)
    if (v.st) owning.insert(v.st->gid);
  std::vector<std::string> member, missing;
  for (unsigned g : owning) {
    auto n = names.find(g);
    const std::string name = n == names.end() ? std::to_string(g) : n->second;
    const bool in = std::find(c.identity.gids.begin(), c.identity.gids.end(), g) != c.identity.gids.end();
    (in ? member : missing).push_back(name);
  }
  std::vector<std::string> gev{fmt::format("{} is in groups {}", who, [&] {
    std::vector<std::string> s;
    for (unsigned g : c.identity.gids)
      s.push_back(names.count(g) ? fmt::format("{}({})", names.at(g), g) : std::to_string(g));
    return fmt::format("{}", fmt::join(s, ", "));
  }())};
  gev.push_back(fmt::format("the device nodes belong to groups {}",
                            fmt::join(
                                [&] {
                                  std::vector<std::string> s;
                                  for (unsigned g : owning)
                                    s.push_back(names.count(g) ? names.at(g) : std::to_string(g));
                                  return s;
                                }(),
                                ", ")));
  if (c.identity.uid == 0 || missing.empty() || denied.empty()) {
    add(out, Category::driver, "driver.groups", Verdict::ok,
        c.identity.uid == 0 ? "root: every node is open"
        : missing.empty()   ? "member of every group owning the nodes"
                            : "not in every owning group, but the nodes are open to all")
        .evidence = gev;
    return;
  }
  auto& f = add(out, Category::driver, "driver.groups", Verdict::warn,
                fmt::format("{} is not in group {}", c.identity.user, fmt::join(missing, ", ")));
  f.evidence = gev;
  f.why = "the GPU nodes are opened through their group (video and render on ROCm and DTK hosts)";
  f.fix = fmt::format("sudo usermod -aG {} {}   # then log in again", fmt::join(missing, ","), c.identity.user);
}

}  // namespace

void check_driver(const Context& c, std::vector<Finding>& out) {
  gpus(c, out);
  nvidia(c, out);
  amdgpu(c, out);
  hygon(c, out);
  nodes(c, out);
}

}  // namespace dcukit::doctor
