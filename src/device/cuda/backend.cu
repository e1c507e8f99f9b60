// The CUDA and HIP backends: one class over the CUDA runtime API, which the HIP build maps
// onto HIP through device/hip/vendor.h. Exported through dcukit_create_backend() only.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

#include "device/backend.h"
#include "device/cuda/blas.cuh"
#include "device/cuda/kernels.cuh"

namespace dcukit::device::gpu {

Status check_gemm_args(const GemmArgs& args) {
  if (args.m <= 0 || args.n <= 0 || args.k <= 0)
    return Error{std::string(kBackendName) + ": gemm needs positive sizes, got m=" + std::to_string(args.m) +
                 " n=" + std::to_string(args.n) + " k=" + std::to_string(args.k)};
  if (!args.a || !args.b || !args.c) return Error{std::string(kBackendName) + ": gemm got a null matrix pointer"};
  return {};
}

namespace {

/// How long dot_result() waits for the copy of the sum, which the caller has usually awaited already.
constexpr std::chrono::milliseconds kDotTimeout{60000};

/// What one device needs besides its memory: two streams, the dot scratch, the BLAS.
/// Created by select() with the device current; destroyed with it current again.
struct DeviceState {
  int index = 0;
  int sms = 1;
  std::string name;
  cudaStream_t streams[2] = {nullptr, nullptr};
  DotScratch dot;
  double* dot_host = nullptr;  ///< pinned, receives the sum
  std::unique_ptr<Blas> blas;  ///< created on first use: loading the BLAS is slow

  ~DeviceState() {
    if (cudaSetDevice(index) != cudaSuccess) return;  // the runtime is gone: nothing to free
    blas.reset();
    if (dot_host) (void)cudaFreeHost(dot_host);
    if (dot.partials) (void)cudaFree(dot.partials);
    if (dot.counter) (void)cudaFree(dot.counter);
    if (dot.result) (void)cudaFree(dot.result);
    for (auto s : streams)
      if (s) (void)cudaStreamDestroy(s);
  }
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

/// "12.4" from CUDA's 12040; "5.2.21153" from HIP's 50221153.
std::string runtime_version_text(int v) {
#if defined(DCUKIT_HIP)
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
#else
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
#endif
}

/// "sm_90", or the gfx name without its feature suffix ("gfx90a" from "gfx90a:sramecc+:xnack-").
std::string arch_name(const cudaDeviceProp& prop) {
#if defined(DCUKIT_HIP)
  std::string arch = prop.gcnArchName;
  return arch.substr(0, arch.find(':'));
#else
  return "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
#endif
}

#if !defined(DCUKIT_HIP)
/// The static CUDA runtime reports a missing driver as "insufficient": say which it is.
std::string driver_hint(cudaError_t e) {
  if (e != cudaErrorInsufficientDriver) return {};
  if (void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(lib);
    return " (the NVIDIA driver is older than this CUDA " + runtime_version_text(CUDART_VERSION) +
           " build needs; update the driver or build with an older CUDA toolkit)";
  }
  return std::string(" (no NVIDIA driver: ") + dlerror() + ")";
}
#endif

class GpuBackend final : public Backend {
public:
  ~GpuBackend() override { m_devices.clear(); }

  std::string name() const override { return kBackendName; }

  std::vector<std::pair<std::string, std::string>> versions() override {
    std::vector<std::pair<std::string, std::string>> out;
    int v = 0;
    const std::string runtime = kBackendName == std::string("hip") ? "HIP runtime" : "CUDA runtime";
    out.emplace_back(runtime, cudaRuntimeGetVersion(&v) == cudaSuccess ? runtime_version_text(v) : "unknown");
    v = 0;
    out.emplace_back(kBackendName == std::string("hip") ? "HIP driver" : "CUDA driver",
                     cudaDriverGetVersion(&v) == cudaSuccess ? runtime_version_text(v) : "unknown");
#if defined(DCUKIT_HIP)
    out.emplace_back("HIP built against", runtime_version_text(HIP_VERSION));
#else
    out.emplace_back("CUDA built against", runtime_version_text(CUDART_VERSION));
#endif
    for (auto& p : blas_versions()) out.push_back(std::move(p));
    return out;
  }

  int device_count() override {
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
  }

  Result<DeviceInfo> device_info(int index) override {
    if (auto st = check_index(index); !st) return st.error();
    cudaDeviceProp prop{};
    DCUKIT_CHECK(cudaGetDeviceProperties(&prop, index));
    DeviceInfo info;
    info.index = index;
    info.name = prop.name;
    info.arch = arch_name(prop);
    char bus[32];
    std::snprintf(bus, sizeof bus, "%04x:%02x:%02x.0", unsigned(prop.pciDomainID), unsigned(prop.pciBusID),
                  unsigned(prop.pciDeviceID));
    info.pci_bus_id = lower(bus);
    info.total_memory = prop.totalGlobalMem;
    info.compute_units = prop.multiProcessorCount;
    info.warp_size = prop.warpSize;
    int khz = 0;
    DCUKIT_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index));
    info.clock_mhz = khz / 1000;
    khz = 0;
    DCUKIT_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index));
    info.memory_clock_mhz = khz / 1000;
    info.memory_bus_width_bits = prop.memoryBusWidth;
    info.l2_cache_bytes = prop.l2CacheSize > 0 ? std::uint64_t(prop.l2CacheSize) : 0;
    return info;
  }

  Status select(int index) override {
    if (auto st = check_index(index); !st) return st;
    DCUKIT_CHECK(cudaSetDevice(index));
    if (m_devices.size() <= std::size_t(index)) m_devices.resize(index + 1);
    if (!m_devices[index]) {
      auto state = std::make_unique<DeviceState>();  // frees what was made if a step fails
      if (auto st = init_state(index, *state); !st) return st;
      m_devices[index] = std::move(state);
    }
    m_current = index;
    return {};
  }

  Result<MemInfo> memory_info() override {
    auto d = current();
    if (!d) return d.error();
    std::size_t free = 0, total = 0;
    DCUKIT_CHECK(cudaMemGetInfo(&free, &total));
    return MemInfo{free, total};
  }

  Result<void*> allocate(MemKind kind, std::size_t bytes) override {
    auto d = current();
    if (!d) return d.error();
    void* p = nullptr;
    switch (kind) {
      case MemKind::device:
        DCUKIT_CHECK(cudaMalloc(&p, bytes));
        break;
      case MemKind::pinned_host:
        DCUKIT_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
        break;
      case MemKind::pageable_host: {
        const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
        p = std::aligned_alloc(4096, rounded);
        if (!p)
          return Error{std::string(kBackendName) + ": out of host memory allocating " + std::to_string(bytes) +
                       " bytes"};
        break;
      }
    }
    return p;
  }

  void release(MemKind kind, void* ptr) noexcept override {
    if (!ptr) return;
    switch (kind) {
      case MemKind::device:
        (void)cudaFree(ptr);
        break;
      case MemKind::pinned_host:
        (void)cudaFreeHost(ptr);
        break;
      case MemKind::pageable_host:
        std::free(ptr);
        break;
    }
  }

  Status pin(void* ptr, std::size_t bytes) override {
    DCUKIT_CHECK(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
    return {};
  }

  Status unpin(void* ptr) override {
    DCUKIT_CHECK(cudaHostUnregister(ptr));
    return {};
  }

  Status copy(void* dst, const void* src, std::size_t bytes, int stream) override {
    auto d = current();
    if (!d) return d.error();
    auto s = stream_of(**d, stream);
    if (!s) return s.error();
    DCUKIT_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, *s));
    return {};
  }

  Status fill(Precision type, void* dst, double value, std::size_t n) override {
    auto d = current();
    if (!d) return d.error();
    return launch_fill(type, dst, value, n, (*d)->sms, (*d)->streams[0]);
  }

  Status stream(StreamOp op, Precision type, void* a, void* b, void* c, double scalar, std::size_t n) override {
    auto d = current();
    if (!d) return d.error();
    auto variant = stream_variant_from_env();
    if (!variant) return variant.error();
    return launch_stream(op, type, a, b, c, scalar, n, *variant, (*d)->sms, (*d)->dot, (*d)->streams[0]);
  }

  Result<double> dot_result() override {
    auto d = current();
    if (!d) return d.error();
    DeviceState& s = **d;
    DCUKIT_CHECK(cudaMemcpyAsync(s.dot_host, s.dot.result, sizeof(double), cudaMemcpyDeviceToHost, s.streams[0]));
    if (auto st = wait_stream(s, 0, kDotTimeout, "the dot result"); !st) return st.error();
    return *s.dot_host;
  }

  Status launch_empty() override {
    auto d = current();
    if (!d) return d.error();
    return gpu::launch_empty((*d)->streams[0]);
  }

  std::string gemm_unsupported(Precision p) override {
    auto b = blas();
    if (!b) return b.error().message;
    return (*b)->unsupported(p);
  }

  Status gemm(const GemmArgs& args) override {
    auto b = blas();
    if (!b) return b.error();
    return (*b)->gemm(args, m_devices[m_current]->streams[0]);
  }

  Result<EventHandle> create_event() override {
    auto d = current();
    if (!d) return d.error();
    cudaEvent_t e = nullptr;
    DCUKIT_CHECK(cudaEventCreate(&e));
    return static_cast<EventHandle>(e);
  }

  Status record(EventHandle event, int stream) override {
    auto d = current();
    if (!d) return d.error();
    auto s = stream_of(**d, stream);
    if (!s) return s.error();
    DCUKIT_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(event), *s));
    return {};
  }

  Result<double> elapsed_ms(EventHandle start, EventHandle end, std::chrono::milliseconds timeout) override {
    auto s = static_cast<cudaEvent_t>(start), e = static_cast<cudaEvent_t>(end);
    const auto began = std::chrono::steady_clock::now();
    for (auto [ev, what] : {std::pair{e, "end"}, std::pair{s, "start"}}) {
      const auto left =
          timeout - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
      const cudaError_t r =
          poll_until([ev = ev] { return cudaEventQuery(ev); }, std::max(left, std::chrono::milliseconds(0)));
      if (r == cudaErrorNotReady)
        return Error{std::string(kBackendName) + ": the " + what + " event of a timing did not complete within " +
                     std::to_string(timeout.count()) + " ms on " + device_label() + "; the device may be hung"};
      DCUKIT_CHECK(r);
    }
    float ms = 0;
    DCUKIT_CHECK(cudaEventElapsedTime(&ms, s, e));
    return double(ms);
  }

  void destroy_event(EventHandle event) noexcept override {
    if (event) (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }

  Status synchronize(std::chrono::milliseconds timeout) override {
    auto d = current();
    if (!d) return d.error();
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (int i = 0; i < 2; ++i) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (auto st = wait_stream(**d, i, std::max(left, std::chrono::milliseconds(0)), nullptr, timeout); !st) return st;
    }
    return {};
  }

private:
  /// Streams, dot scratch and the pinned dot result of device `index` (current).
  static Status init_state(int index, DeviceState& state) {
    state.index = index;
    cudaDeviceProp prop{};
    DCUKIT_CHECK(cudaGetDeviceProperties(&prop, index));
    state.sms = std::max(1, prop.multiProcessorCount);
    state.name = prop.name;
    for (auto& s : state.streams) DCUKIT_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    // Enough partials for any resident-block count (≤ 64 blocks of 256 threads per SM/CU).
    state.dot.capacity = state.sms * 64;
    DCUKIT_CHECK(cudaMalloc(reinterpret_cast<void**>(&state.dot.partials), sizeof(double) * state.dot.capacity));
    DCUKIT_CHECK(cudaMalloc(reinterpret_cast<void**>(&state.dot.counter), sizeof(unsigned)));
    DCUKIT_CHECK(cudaMalloc(reinterpret_cast<void**>(&state.dot.result), sizeof(double)));
    DCUKIT_CHECK(cudaMemsetAsync(state.dot.counter, 0, sizeof(unsigned), state.streams[0]));
    DCUKIT_CHECK(cudaMemsetAsync(state.dot.result, 0, sizeof(double), state.streams[0]));
    DCUKIT_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&state.dot_host), sizeof(double), cudaHostAllocDefault));
    return {};
  }

  Status check_index(int index) {
    const int n = device_count();
    if (index < 0 || index >= n)
      return Error{std::string(kBackendName) + ": no device " + std::to_string(index) + "; this host has " +
                   std::to_string(n) + " (indices 0.." + std::to_string(n - 1) + ")"};
    return {};
  }

  /// The current device's state; selects device 0 when nothing was selected yet. Re-applies
  /// the selection when called from a thread whose current device differs (it is per thread,
  /// and a launch into another device's stream fails).
  Result<DeviceState*> current() {
    if (m_current < 0) {
      if (auto st = select(0); !st) return st.error();
    } else {
      int dev = -1;
      if (cudaGetDevice(&dev) != cudaSuccess || dev != m_current) DCUKIT_CHECK(cudaSetDevice(m_current));
    }
    return m_devices[m_current].get();
  }

  Result<cudaStream_t> stream_of(DeviceState& d, int stream) {
    if (stream != 0 && stream != 1)
      return Error{std::string(kBackendName) + ": stream " + std::to_string(stream) + " does not exist; use 0 or 1"};
    return d.streams[stream];
  }

  std::string device_label() const {
    if (m_current < 0) return "no device";
    return "device " + std::to_string(m_current) + " (" + m_devices[m_current]->name + ")";
  }

  /// Polls one stream until idle or `timeout`; the error names the stream and what it held.
  Status wait_stream(DeviceState& d, int stream, std::chrono::milliseconds timeout, const char* what,
                     std::chrono::milliseconds reported = std::chrono::milliseconds(-1)) {
    cudaStream_t s = d.streams[stream];
    const cudaError_t r = poll_until([s] { return cudaStreamQuery(s); }, timeout);
    if (r == cudaErrorNotReady) {
      const auto shown = reported.count() >= 0 ? reported : timeout;
      return Error{std::string(kBackendName) + ": waiting for " +
                   (what ? std::string(what) : "stream " + std::to_string(stream) + "'s work") + " on " +
                   device_label() + " timed out after " + std::to_string(shown.count()) +
                   " ms; the device may be hung or the work is longer than the deadline"};
    }
    DCUKIT_CHECK(r);
    return {};
  }

  Result<Blas*> blas() {
    auto d = current();
    if (!d) return d.error();
    if (!(*d)->blas) (*d)->blas = make_blas(m_current);
    return (*d)->blas.get();
  }

  int m_current = -1;
  // Indexed by device. Not std::map: Debian's clang 15 crashes on std::map in HIP C++20 code.
  std::vector<std::unique_ptr<DeviceState>> m_devices;
};

}  // namespace
}  // namespace dcukit::device::gpu

/// The one exported symbol (see device/backend.h). Never throws.
extern "C" __attribute__((visibility("default"))) dcukit::device::Backend* dcukit_create_backend(int abi_version,
                                                                                                 std::string* error) {
  using namespace dcukit::device;
  std::string lib = std::string("libdcukit_") + gpu::kBackendName + ".so";
  auto fail = [&](std::string message) -> Backend* {
    if (error) *error = std::move(message);
    return nullptr;
  };
  try {
    if (abi_version != kBackendAbiVersion)
      return fail(lib + " implements backend ABI " + std::to_string(kBackendAbiVersion) + " but dcukit expects " +
                  std::to_string(abi_version) + "; rebuild dcukit and its backends together");
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess)
#if defined(DCUKIT_HIP)
      return fail("hipGetDeviceCount failed: " + gpu::status_text(e));
#else
      return fail("cudaGetDeviceCount failed: " + gpu::status_text(e) + gpu::driver_hint(e));
#endif
    return new gpu::GpuBackend();
  } catch (const std::exception& e) {
    return fail(lib + ": " + e.what());
  } catch (...) {
    return fail(lib + ": unknown exception while starting");
  }
}
