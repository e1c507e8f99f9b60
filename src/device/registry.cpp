#include "device/registry.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "device/cpu/cpu_backend.h"
#include "util/sysfs.h"

namespace dcukit::device {
namespace {

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return {};
  std::string path(buf, static_cast<std::size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::vector<std::string> search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("DCUKIT_BACKEND_PATH")) {
    std::string s = env;
    std::size_t start = 0;
    while (start <= s.size()) {
      const std::size_t end = std::min(s.find(':', start), s.size());
      if (end > start) dirs.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string exe = executable_dir();
  if (!exe.empty()) {
    dirs.push_back(exe + "/../lib/dcukit");
    dirs.push_back(exe);
  }
  return dirs;
}

// Tries each folder, then the loader's own path; keeps every loader message for the report.
BackendSlot load_gpu_backend(BackendKind kind) {
  BackendSlot slot;
  slot.kind = kind;
  const std::string name(to_string(kind));
  const std::string file = "libdcukit_" + name + ".so";
  std::vector<std::string> tried;
  std::vector<std::string> candidates;
  for (const auto& d : search_dirs()) candidates.push_back(d + "/" + file);
  candidates.push_back(file);
  for (const auto& path : candidates) {
    if (path.find('/') != std::string::npos && access(path.c_str(), F_OK) != 0) continue;
    util::DynLib lib;
    if (!lib.open(path)) {
      slot.library = path;
      slot.error = lib.error();
      return slot;  // the file exists but cannot load: that message is the one to show
    }
    slot.library = path;
    auto factory = reinterpret_cast<BackendFactory>(lib.symbol(kBackendFactorySymbol));
    if (!factory) {
      slot.error = lib.error();
      return slot;
    }
    std::string error;
    Backend* backend = factory(kBackendAbiVersion, &error);
    if (!backend) {
      slot.error = error.empty() ? "the backend refused to start" : error;
      return slot;
    }
    slot.backend.reset(backend);
    slot.lib = std::move(lib);
    if (slot.backend->kind() != kind) {
      slot.error = fmt::format("{} made a {} backend, not {}", path, to_string(slot.backend->kind()), name);
      slot.backend.reset();
      return slot;
    }
    slot.device_count = slot.backend->device_count();
    return slot;
  }
  slot.error =
      fmt::format("{} not found (this build has no {} backend, or it was not installed beside dcukit)", file, name);
  return slot;
}

}  // namespace

Registry Registry::load(int cpu_devices) {
  Registry r;
  r.m_slots.push_back(load_gpu_backend(BackendKind::cuda));
  r.m_slots.push_back(load_gpu_backend(BackendKind::hip));
  BackendSlot cpu;
  cpu.kind = BackendKind::cpu;
  cpu.backend = std::make_unique<cpu::CpuBackend>(cpu_devices);
  cpu.device_count = cpu.backend->device_count();
  r.m_slots.push_back(std::move(cpu));
  return r;
}

Registry Registry::of(std::vector<BackendSlot> slots) {
  Registry r;
  r.m_slots = std::move(slots);
  return r;
}

BackendSlot* Registry::find(BackendKind kind) {
  for (auto& s : m_slots)
    if (s.kind == kind) return &s;
  return nullptr;
}

BackendSlot* Registry::default_slot() {
  for (auto& s : m_slots)
    if (s.kind != BackendKind::cpu && s.loaded() && s.device_count > 0) return &s;
  return find(BackendKind::cpu);
}

DetectedDevice describe_device(Backend& backend, int index, Device* opened) {
  DetectedDevice d;
  d.backend = backend.kind();
  if (auto info = backend.device_info(index)) d.info = *info;
  if (opened)
    if (auto mem = opened->memory_info()) d.memory = *mem;
  const auto link = util::read_pci_link(d.info.pci_bus_id);
  d.numa_node = link.numa_node;
  d.pcie_gen = core::pcie_gen_from_speed(link.current_speed);
  d.pcie_width = link.current_width;
  d.pci_id = link.vendor_device;
  d.spec = core::PeakTable::builtin().match(d.info.name, d.pci_id, d.info.arch);
  if (d.spec)
    d.vendor = d.spec->vendor;
  else if (auto v = core::vendor_of_pci_id(d.pci_id))
    d.vendor = *v;
  else
    d.vendor = d.backend == BackendKind::cpu   ? core::Vendor::cpu
               : d.backend == BackendKind::hip ? core::Vendor::amd
                                               : core::Vendor::nvidia;
  return d;
}

std::vector<DetectedDevice> detect_gpus(Registry& registry) {
  std::vector<DetectedDevice> out;
  for (auto& slot : registry.slots()) {
    if (slot.kind == BackendKind::cpu || !slot.loaded()) continue;
    for (int i = 0; i < slot.device_count; ++i) {
      if (!slot.backend->device_info(i)) continue;
      auto device = slot.backend->open(i);
      out.push_back(describe_device(*slot.backend, i, device ? device->get() : nullptr));
    }
  }
  return out;
}

}  // namespace dcukit::device
