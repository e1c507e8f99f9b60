#include "device/cpu/cpu_backend.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "device/cpu/openblas.h"
#include "device/cpu/parallel.h"
#include "util/host.h"
#include "util/sysfs.h"

namespace dcukit::device::cpu {
namespace {

using Clock = std::chrono::steady_clock;


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

template <class T>
void run_stream(StreamOp op, T* a, T* b, T* c, T s, std::size_t n, double& dot) {
  switch (op) {
    case StreamOp::copy:
      parallel_for(n, [=](std::size_t i0, std::size_t i1) {
        for (auto i = i0; i < i1; ++i) c[i] = a[i];
      });
      break;
    case StreamOp::scale:
      parallel_for(n, [=](std::size_t i0, std::size_t i1) {
        for (auto i = i0; i < i1; ++i) b[i] = s * c[i];
      });
      break;
    case StreamOp::add:
      parallel_for(n, [=](std::size_t i0, std::size_t i1) {
        for (auto i = i0; i < i1; ++i) c[i] = a[i] + b[i];
      });
      break;
    case StreamOp::triad:
      parallel_for(n, [=](std::size_t i0, std::size_t i1) {
        for (auto i = i0; i < i1; ++i) a[i] = b[i] + s * c[i];
      });
      break;
    case StreamOp::dot: {
      std::vector<double> partial(std::max(1u, std::thread::hardware_concurrency()) + 1, 0.0);
      std::atomic<std::size_t> slot{0};
      parallel_for(n, [&](std::size_t i0, std::size_t i1) {
        double sum = 0;
        for (auto i = i0; i < i1; ++i) sum += a[i] * b[i];
        partial[slot++] = static_cast<double>(sum);
      });
      dot = 0;
      for (double p : partial) dot += p;
      break;
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CpuBackend::versions() {
  const auto& blas = openblas();
  return {{"cpu", util::cpu_model()}, {"blas", blas ? blas->config : "not loaded: " + blas.error().message}};
}

Result<DeviceInfo> CpuBackend::device_info(int index) {
  if (index != 0) return Error{fmt::format("--device {}: the CPU backend has one device, 0", index)};
  DeviceInfo d;
  d.name = "Host CPU (" + util::cpu_model() + ")";
  d.arch = "x86_64";
  d.total_memory = util::meminfo_bytes("MemTotal");
  d.compute_units = static_cast<int>(std::thread::hardware_concurrency());
  d.warp_size = 1;
  d.l2_cache_bytes = last_level_cache();
  return d;
}

Status CpuBackend::select(int index) {
  if (index != 0) return Error{fmt::format("--device {}: the CPU backend has one device, 0", index)};
  return {};
}

Result<MemInfo> CpuBackend::memory_info() {
  return MemInfo{util::meminfo_bytes("MemAvailable"), util::meminfo_bytes("MemTotal")};
}

Result<void*> CpuBackend::allocate(MemKind, std::size_t bytes) {
  void* p = nullptr;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  if (posix_memalign(&p, 64, rounded ? rounded : 64) != 0 || !p)
    return Error{fmt::format("host allocation of {} bytes failed", bytes)};
  return p;
}

void CpuBackend::release(MemKind, void* ptr) noexcept {
  std::free(ptr);
}

Status CpuBackend::copy(void* dst, const void* src, std::size_t bytes, int) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  parallel_for(
      bytes, [=](std::size_t b, std::size_t e) { std::memcpy(d + b, s + b, e - b); }, 1 << 20);
  return {};
}

Status CpuBackend::fill(Precision type, void* dst, double value, std::size_t n) {
  if (type == Precision::fp64) {
    auto* p = static_cast<double*>(dst);
    parallel_for(n, [=](std::size_t b, std::size_t e) { std::fill(p + b, p + e, value); });
  } else if (type == Precision::fp32) {
    auto* p = static_cast<float*>(dst);
    const auto v = static_cast<float>(value);
    parallel_for(n, [=](std::size_t b, std::size_t e) { std::fill(p + b, p + e, v); });
  } else {
    return Error{fmt::format("fill: {} is not a STREAM type (fp32 or fp64)", to_string(type))};
  }
  return {};
}

Status CpuBackend::stream(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n) {
  if (type == Precision::fp64)
    run_stream(op, static_cast<double*>(a), static_cast<double*>(b), static_cast<double*>(c), scalar, n, m_dot);
  else if (type == Precision::fp32)
    run_stream(op, static_cast<float*>(a), static_cast<float*>(b), static_cast<float*>(c), static_cast<float>(scalar),
               n, m_dot);
  else
    return Error{fmt::format("stream: {} is not a STREAM type (fp32 or fp64)", to_string(type))};
  return {};
}

Status CpuBackend::launch_empty() {
  static void (*volatile noop)() = [] {};
  noop();
  return {};
}

Result<EventHandle> CpuBackend::create_event() {
  return static_cast<EventHandle>(new Clock::time_point());
}

Status CpuBackend::record(EventHandle event, int) {
  *static_cast<Clock::time_point*>(event) = Clock::now();
  return {};
}

Result<double> CpuBackend::elapsed_ms(EventHandle start, EventHandle end, std::chrono::milliseconds) {
  const auto d = *static_cast<Clock::time_point*>(end) - *static_cast<Clock::time_point*>(start);
  return std::chrono::duration<double, std::milli>(d).count();
}

void CpuBackend::destroy_event(EventHandle event) noexcept {
  delete static_cast<Clock::time_point*>(event);
}

}  // namespace dcukit::device::cpu
