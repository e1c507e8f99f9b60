// The CUDA and HIP backends: one factory over the CUDA runtime API, which the HIP build maps
// onto HIP through device/hip/vendor.h; its Devices are in device.cu. Exported through
// dcukit_create_backend() only.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

#include "device/backend.h"
#include "device/cuda/device.cuh"

namespace dcukit::device::gpu {

Status check_gemm_args(const GemmArgs& args) {
  if (args.m <= 0 || args.n <= 0 || args.k <= 0)
    return Error{std::string(kBackendName) + ": gemm needs positive sizes, got m=" + std::to_string(args.m) +
                 " n=" + std::to_string(args.n) + " k=" + std::to_string(args.k)};
  if (!args.a || !args.b || !args.c) return Error{std::string(kBackendName) + ": gemm got a null matrix pointer"};
  return {};
}

namespace {

/// How long open() waits for a new device's scratch to be cleared (the first work on it).
constexpr std::chrono::milliseconds kOpenTimeout{60000};

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

GpuDevice* as_gpu(Device& d) {
  return dynamic_cast<GpuDevice*>(&d);
}
const GpuDevice* as_gpu(const Device& d) {
  return dynamic_cast<const GpuDevice*>(&d);
}

Error foreign(const char* call) {
  return Error{std::string(kBackendName) + ": " + call + " was given a device of another backend"};
}

class GpuBackend final : public Backend {
public:
  BackendKind kind() const override {
#if defined(DCUKIT_HIP)
    return BackendKind::hip;
#else
    return BackendKind::cuda;
#endif
  }

  std::vector<std::pair<std::string, std::string>> versions() override {
    std::vector<std::pair<std::string, std::string>> out;
    int v = 0;
#if defined(DCUKIT_HIP)
    const char *runtime = "HIP runtime", *driver = "HIP driver";
#else
    const char *runtime = "CUDA runtime", *driver = "CUDA driver";
#endif
    out.emplace_back(runtime, cudaRuntimeGetVersion(&v) == cudaSuccess ? runtime_version_text(v) : "unknown");
    v = 0;
    out.emplace_back(driver, cudaDriverGetVersion(&v) == cudaSuccess ? runtime_version_text(v) : "unknown");
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

  Result<std::unique_ptr<Device>> open(int index) override {
    if (auto st = check_index(index); !st) return st.error();
    auto device = std::make_unique<GpuDevice>(index);  // frees what was made if a step fails
    if (auto st = device->init(kOpenTimeout); !st) return st.error();
    return std::unique_ptr<Device>(std::move(device));
  }

  Result<bool> can_access_peer(const Device& from, const Device& to) override {
    const GpuDevice *f = as_gpu(from), *t = as_gpu(to);
    if (!f || !t) return foreign("can_access_peer");
    if (f->index() == t->index()) return true;
    int can = 0;
    DCUKIT_CHECK(cudaDeviceCanAccessPeer(&can, f->index(), t->index()));
    return can != 0;
  }

  Status enable_peer_access(Device& from, Device& to) override {
    GpuDevice *f = as_gpu(from), *t = as_gpu(to);
    if (!f || !t) return foreign("enable_peer_access");
    if (f->index() == t->index()) return {};
    if (auto st = f->bind(); !st) return st;
    const cudaError_t e = cudaDeviceEnablePeerAccess(t->index(), 0);
    if (e == cudaErrorPeerAccessAlreadyEnabled) {
      (void)cudaGetLastError();  // clear the sticky-until-read error of this thread
      return {};
    }
    DCUKIT_CHECK(e);
    return {};
  }

  Status copy_peer(Device& dst_device, void* dst, Device& src_device, const void* src, std::size_t bytes,
                   Stream stream) override {
    GpuDevice *d = as_gpu(dst_device), *s = as_gpu(src_device);
    if (!d || !s) return foreign("copy_peer");
    GpuDevice* owner = stream.owner == d ? d : stream.owner == s ? s : nullptr;
    if (!owner)
      return Error{std::string(kBackendName) + ": copy_peer from " + s->label() + " to " + d->label() +
                   " was given a stream of neither"};
    auto native = owner->native(stream);
    if (!native) return native.error();
    if (auto st = owner->bind(); !st) return st;
    DCUKIT_CHECK(cudaMemcpyPeerAsync(dst, d->index(), src, s->index(), bytes, *native));
    return {};
  }

private:
  Status check_index(int index) {
    const int n = device_count();
    if (index < 0 || index >= n)
      return Error{std::string(kBackendName) + ": no device " + std::to_string(index) + "; this host has " +
                   std::to_string(n) + " (indices 0.." + std::to_string(n - 1) + ")"};
    return {};
  }
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
