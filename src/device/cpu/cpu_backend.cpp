// CpuBackend: the host as one device (or several, for tests), and copies between them.
#include "device/cpu/cpu_backend.h"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <thread>

#include "device/cpu/openblas.h"
#include "device/cpu/parallel.h"
#include "util/host.h"
#include "util/sysfs.h"

namespace dcukit::device::cpu {
namespace {

std::uint64_t last_level_cache() {
  for (int idx = 4; idx >= 2; --idx) {
    auto s = util::read_first_line(fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/size", idx));
    if (!s || s->empty()) continue;
    std::uint64_t v = std::strtoull(s->c_str(), nullptr, 10);
    if (s->back() == 'K') v *= 1024;
    if (s->back() == 'M') v *= 1024 * 1024;
    return v;
  }
  return 0;
}

const CpuDevice* as_cpu(const Device& d) {
  return dynamic_cast<const CpuDevice*>(&d);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CpuBackend::versions() {
  const auto& blas = openblas();
  return {{"cpu", util::cpu_model()}, {"blas", blas ? blas->config : "not loaded: " + blas.error().message}};
}

Status CpuBackend::check_index(int index) const {
  if (index < 0 || index >= m_devices) {
    if (m_devices == 1) return Error{fmt::format("--device {}: the CPU backend has one device, 0", index)};
    return Error{fmt::format("--device {}: the CPU backend has {} devices, 0 to {}", index, m_devices, m_devices - 1)};
  }
  return {};
}

Result<DeviceInfo> CpuBackend::device_info(int index) {
  if (auto st = check_index(index); !st) return st.error();
  DeviceInfo d;
  d.index = index;
  d.name = "Host CPU (" + util::cpu_model() + ")";
  d.arch = "x86_64";
  d.total_memory = util::meminfo_bytes("MemTotal");
  d.compute_units = static_cast<int>(std::thread::hardware_concurrency());
  d.warp_size = 1;
  d.l2_cache_bytes = last_level_cache();
  return d;
}

Result<std::unique_ptr<Device>> CpuBackend::open(int index) {
  if (auto st = check_index(index); !st) return st.error();
  return std::unique_ptr<Device>(std::make_unique<CpuDevice>(index));
}

Result<bool> CpuBackend::can_access_peer(const Device& from, const Device& to) {
  if (!as_cpu(from) || !as_cpu(to)) return Error{"cpu: can_access_peer was given a device of another backend"};
  return true;  // every CPU device is the host: each reaches the other's memory
}

Status CpuBackend::enable_peer_access(Device& from, Device& to) {
  if (!as_cpu(from) || !as_cpu(to)) return Error{"cpu: enable_peer_access was given a device of another backend"};
  return {};
}

Status CpuBackend::copy_peer(Device& dst_device, void* dst, Device& src_device, const void* src, std::size_t bytes,
                             Stream stream) {
  const CpuDevice* d = as_cpu(dst_device);
  const CpuDevice* s = as_cpu(src_device);
  if (!d || !s) return Error{"cpu: copy_peer was given a device of another backend"};
  if (stream.owner != d && stream.owner != s)
    return Error{fmt::format("cpu: copy_peer from device {} to device {} was given a stream of neither",
                             src_device.index(), dst_device.index())};
  if (auto st = (stream.owner == d ? d : s)->check(stream); !st) return st;
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  parallel_for(
      bytes, [=](std::size_t b, std::size_t e) { std::memcpy(out + b, in + b, e - b); }, 1 << 20);
  return {};
}

}  // namespace dcukit::device::cpu
