// CpuDevice: the STREAM kernels and copies on the host's cores, synchronously; streams are
// numbers and events host timestamps.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "device/cpu/cpu_backend.h"
#include "device/cpu/parallel.h"
#include "util/host.h"

namespace dcukit::device::cpu {
namespace {

using Clock = std::chrono::steady_clock;

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

Status CpuDevice::check(Stream stream) const {
  const auto id = reinterpret_cast<std::uintptr_t>(stream.impl);
  if (stream.owner != this || id == 0 || id > m_streams)
    return Error{stream.owner ? fmt::format("cpu: device {} was given a stream of another device", m_index)
                              : fmt::format("cpu: device {} was given an empty stream handle", m_index)};
  return {};
}

Status CpuDevice::check(Event event) const {
  if (event.owner != this || !event.impl)
    return Error{fmt::format("cpu: device {} was given an event it did not create", m_index)};
  return {};
}

CpuDevice::CpuDevice(int index) : m_index(index) {
  const char* faults = std::getenv("DCUKIT_CPU_FAULTS");
  if (!faults) return;
  const std::string_view spec(faults);
  const auto every = [&](std::string_view key) {
    const auto at = spec.find(key);
    return at == std::string_view::npos ? 0 : std::atoi(faults + at + key.size());
  };
  m_gemm_fault = every("gemm=");
  m_readback_fault = every("readback=");
}

Result<MemInfo> CpuDevice::memory_info() {
  return MemInfo{util::meminfo_bytes("MemAvailable"), util::meminfo_bytes("MemTotal")};
}

Result<void*> CpuDevice::allocate(MemKind kind, std::size_t bytes) {
  void* p = nullptr;
  const std::size_t rounded = (bytes + 63) / 64 * 64;
  if (posix_memalign(&p, 64, rounded ? rounded : 64) != 0 || !p)
    return Error{fmt::format("host allocation of {} bytes failed", bytes)};
  if (m_readback_fault > 0 && kind == MemKind::device) m_device_memory.emplace_back(static_cast<const char*>(p), bytes);
  return p;
}

void CpuDevice::release(MemKind, void* ptr) noexcept {
  std::erase_if(m_device_memory, [ptr](const auto& r) { return r.first == ptr; });
  std::free(ptr);
}

Result<Stream> CpuDevice::create_stream() {
  return Stream{this, reinterpret_cast<void*>(++m_streams)};
}

Status CpuDevice::copy(void* dst, const void* src, std::size_t bytes, Stream stream) {
  if (auto st = check(stream); !st) return st;
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  parallel_for(
      bytes, [=](std::size_t b, std::size_t e) { std::memcpy(d + b, s + b, e - b); }, 1 << 20);
  if (m_readback_fault > 0 && bytes >= (1u << 20)) {  // the test-only fault: a cell that reads wrong
    const auto in = [&](const char* p) {
      return std::any_of(m_device_memory.begin(), m_device_memory.end(),
                         [p](const auto& r) { return p >= r.first && p < r.first + r.second; });
    };
    if (in(s) && !in(d) && ++m_readbacks % m_readback_fault == 0) d[bytes / 2] ^= 0x10;
  }
  return {};
}

Status CpuDevice::fill(Precision type, void* dst, double value, std::size_t n, Stream stream) {
  if (auto st = check(stream); !st) return st;
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

Status CpuDevice::stream_op(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n,
                            Stream stream) {
  if (auto st = check(stream); !st) return st;
  if (type == Precision::fp64)
    run_stream(op, static_cast<double*>(a), static_cast<double*>(b), static_cast<double*>(c), scalar, n, m_dot);
  else if (type == Precision::fp32)
    run_stream(op, static_cast<float*>(a), static_cast<float*>(b), static_cast<float*>(c), static_cast<float>(scalar),
               n, m_dot);
  else
    return Error{fmt::format("stream: {} is not a STREAM type (fp32 or fp64)", to_string(type))};
  return {};
}

Result<double> CpuDevice::dot_result(Stream stream, std::chrono::milliseconds) {
  if (auto st = check(stream); !st) return st.error();
  return m_dot;
}

Status CpuDevice::launch_empty(Stream stream) {
  if (auto st = check(stream); !st) return st;
  static void (*volatile noop)() = [] {};
  noop();
  return {};
}

Status CpuDevice::chase(const std::uint32_t* chain, std::uint64_t steps, std::uint32_t* out, Stream stream) {
  if (auto st = check(stream); !st) return st;
  const volatile std::uint32_t* c = chain;  // every load is made, in order
  std::uint32_t i = 0;
  for (std::uint64_t s = 0; s < steps; ++s) i = c[i];
  *out = i;
  return {};
}

Result<Event> CpuDevice::create_event() {
  return Event{this, new Clock::time_point()};
}

Status CpuDevice::record(Event event, Stream stream) {
  if (auto st = check(stream); !st) return st;
  if (auto st = check(event); !st) return st;
  *static_cast<Clock::time_point*>(event.impl) = Clock::now();
  return {};
}

Result<double> CpuDevice::elapsed_ms(Event start, Event end, std::chrono::milliseconds) {
  if (auto st = check(start); !st) return st.error();
  if (auto st = check(end); !st) return st.error();
  const auto d = *static_cast<Clock::time_point*>(end.impl) - *static_cast<Clock::time_point*>(start.impl);
  return std::chrono::duration<double, std::milli>(d).count();
}

void CpuDevice::destroy_event(Event event) noexcept {
  if (event.owner == this) delete static_cast<Clock::time_point*>(event.impl);
}

}  // namespace dcukit::device::cpu
