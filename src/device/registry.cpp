#include "device/registry.h"

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

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
BackendSlot load_gpu_backend(const std::string& name) {
  BackendSlot slot;
  slot.name = name;
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
    slot.device_count = slot.backend->device_count();
    return slot;
  }
  slot.error = fmt::format("{} not found (this build has no {} backend, or it was not installed beside dcukit)", file, name);
  return slot;
}

} // namespace

Registry Registry::load() {
  Registry r;
  r.m_slots.push_back(load_gpu_backend("cuda"));
  r.m_slots.push_back(load_gpu_backend("hip"));
  BackendSlot cpu;
  cpu.name = "cpu";
  cpu.backend = std::make_unique<cpu::CpuBackend>();
  cpu.device_count = cpu.backend->device_count();
  r.m_slots.push_back(std::move(cpu));
  return r;
}

BackendSlot* Registry::find(const std::string& name) {
  for (auto& s : m_slots)
    if (s.name == name) return &s;
  return nullptr;
}

BackendSlot* Registry::default_slot() {
  for (auto& s : m_slots)
    if (s.name != "cpu" && s.loaded() && s.device_count > 0) return &s;
  return find("cpu");
}

DetectedDevice describe_device(Backend& backend, int index) {
  DetectedDevice d;
  d.backend = backend.name();
  if (auto info = backend.device_info(index)) d.info = *info;
  if (backend.select(index))
    if (auto mem = backend.memory_info()) d.memory = *mem;
  const auto link = util::read_pci_link(d.info.pci_bus_id);
  d.numa_node = link.numa_node;
  d.pcie_gen = core::pcie_gen_from_speed(link.current_speed);
  d.pcie_width = link.current_width;
  d.pci_id = link.vendor_device;
  d.spec = core::PeakTable::builtin().match(d.info.name, d.pci_id, d.info.arch);
  return d;
}

std::vector<DetectedDevice> detect_gpus(Registry& registry) {
  std::vector<DetectedDevice> out;
  for (auto& slot : registry.slots()) {
    if (slot.name == "cpu" || !slot.loaded()) continue;
    for (int i = 0; i < slot.device_count; ++i)
      if (slot.backend->device_info(i)) out.push_back(describe_device(*slot.backend, i));
  }
  return out;
}

} // namespace dcukit::device
