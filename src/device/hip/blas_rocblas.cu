// GEMM through rocBLAS's rocblas_gemm_ex (HIP only; the CUDA build uses cuda/blas_cublaslt.cu).
// rocBLAS is loaded with dlopen on first use, so the backend loads and runs the memory
// benchmarks on a host without it, and gemm_unsupported() says "rocBLAS not found: <dlerror>".
// Search: $DCUKIT_ROCBLAS (a path), librocblas.so[.N] on the loader path, then $ROCM_PATH/lib,
// /opt/dtk/lib, /opt/rocm/lib.
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "device/cuda/blas.cuh"
#include "device/hip/rocblas_api.h"

namespace dcukit::device::gpu {

/// rocBLAS's entry points, resolved once per process.
struct RocblasApi {
  void* lib = nullptr;
  std::string error;  ///< why it is unusable; empty when loaded
  std::string path;
  rocblas_create_handle_fn create_handle = nullptr;
  rocblas_destroy_handle_fn destroy_handle = nullptr;
  rocblas_set_stream_fn set_stream = nullptr;
  rocblas_gemm_ex_fn gemm_ex = nullptr;
  rocblas_get_version_string_size_fn version_size = nullptr;
  rocblas_get_version_string_fn version_string = nullptr;
  rocblas_status_to_string_fn status_to_string = nullptr;
};

namespace {

std::vector<std::string> candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("DCUKIT_ROCBLAS"); env && *env) out.emplace_back(env);
  for (const char* name : {"librocblas.so", "librocblas.so.4", "librocblas.so.3", "librocblas.so.0"})
    out.emplace_back(name);
  if (const char* root = std::getenv("ROCM_PATH"); root && *root)
    out.push_back(std::string(root) + "/lib/librocblas.so");
  out.emplace_back("/opt/dtk/lib/librocblas.so");
  out.emplace_back("/opt/rocm/lib/librocblas.so");
  return out;
}

RocblasApi load_api() {
  RocblasApi api;
  std::string first_error;
  for (const auto& name : candidates()) {
    api.lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.lib) {
      api.path = name;
      break;
    }
    if (first_error.empty())
      first_error = dlerror();
    else
      (void)dlerror();
  }
  if (!api.lib) {
    api.error = "rocBLAS not found: " + first_error + " (set DCUKIT_ROCBLAS to librocblas.so's path)";
    return api;
  }
  auto need = [&](auto& fn, const char* symbol) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api.lib, symbol));
    if (!fn && api.error.empty()) api.error = "rocBLAS at " + api.path + " lacks " + symbol + ": " + dlerror();
  };
  need(api.create_handle, "rocblas_create_handle");
  need(api.destroy_handle, "rocblas_destroy_handle");
  need(api.set_stream, "rocblas_set_stream");
  need(api.gemm_ex, "rocblas_gemm_ex");
  need(api.version_size, "rocblas_get_version_string_size");
  need(api.version_string, "rocblas_get_version_string");
  api.status_to_string = reinterpret_cast<rocblas_status_to_string_fn>(dlsym(api.lib, "rocblas_status_to_string"));
  return api;  // the library stays loaded for the life of the process
}

const RocblasApi& api() {
  static const RocblasApi loaded = load_api();
  return loaded;
}

}  // namespace

inline bool status_ok(rocblas_status s) {
  return s == rocblas_status_success;
}
inline std::string status_text(rocblas_status s) {
  const auto& a = api();
  if (a.status_to_string) return a.status_to_string(s);
  return "rocblas_status " + std::to_string(int(s));
}

namespace {

struct RocTypes {
  rocblas_datatype ab, c, compute;
};

RocTypes roc_types(Precision p) {
  switch (p) {
    case Precision::fp64:
      return {rocblas_datatype_f64_r, rocblas_datatype_f64_r, rocblas_datatype_f64_r};
    case Precision::fp16:
      return {rocblas_datatype_f16_r, rocblas_datatype_f16_r, rocblas_datatype_f32_r};
    case Precision::bf16:
      return {rocblas_datatype_bf16_r, rocblas_datatype_bf16_r, rocblas_datatype_f32_r};
    case Precision::int8:
      return {rocblas_datatype_i8_r, rocblas_datatype_i32_r, rocblas_datatype_i32_r};
    default:
      return {rocblas_datatype_f32_r, rocblas_datatype_f32_r, rocblas_datatype_f32_r};
  }
}

class RocBlas final : public Blas {
public:
  RocBlas(rocblas_handle handle, std::string arch) : m_handle(handle), m_arch(std::move(arch)) {}
  ~RocBlas() override { (void)api().destroy_handle(m_handle); }

  std::string unsupported(Precision p) override {
    switch (p) {
      case Precision::tf32:
        return "tf32 is not offered by rocBLAS gemm_ex (only gfx94x has xf32, through hipBLASLt); this device is " +
               m_arch;
      case Precision::fp8:
        return "fp8 E4M3 GEMM through rocBLAS/hipBLASLt is not implemented in dcukit's HIP backend; this device is " +
               m_arch;
      default:
        return {};
    }
  }

  Status gemm(const GemmArgs& args, cudaStream_t stream) override {
    if (auto st = check_gemm_args(args); !st) return st;
    if (auto why = unsupported(args.precision); !why.empty()) return Error{"gemm: " + why};
    const auto& a = api();
    const RocTypes t = roc_types(args.precision);
    const double alpha64 = 1, beta64 = 0;
    const float alpha32 = 1, beta32 = 0;
    const int32_t alpha_i = 1, beta_i = 0;
    const void* alpha = t.compute == rocblas_datatype_f64_r   ? (const void*)&alpha64
                        : t.compute == rocblas_datatype_i32_r ? (const void*)&alpha_i
                                                              : (const void*)&alpha32;
    const void* beta = t.compute == rocblas_datatype_f64_r   ? (const void*)&beta64
                       : t.compute == rocblas_datatype_i32_r ? (const void*)&beta_i
                                                             : (const void*)&beta32;
    DCUKIT_CHECK(a.set_stream(m_handle, stream));
    // C (m×n) = Aᵀ·B with A k×m and B k×n, column-major and packed (GemmArgs).
    DCUKIT_CHECK(a.gemm_ex(m_handle, rocblas_operation_transpose, rocblas_operation_none, args.m, args.n, args.k, alpha,
                           args.a, t.ab, args.k, args.b, t.ab, args.k, beta, args.c, t.c, args.m, args.c, t.c, args.m,
                           t.compute, rocblas_gemm_algo_standard, 0, 0));
    return {};
  }

private:
  rocblas_handle m_handle;
  std::string m_arch;
};

}  // namespace

std::unique_ptr<Blas> make_blas(int device) {
  const auto& a = api();
  if (!a.error.empty()) return std::make_unique<UnavailableBlas>(a.error);
  cudaDeviceProp prop{};
  if (auto e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess)
    return std::make_unique<UnavailableBlas>("hip: hipGetDeviceProperties failed: " + status_text(e));
  std::string arch = prop.gcnArchName;
  arch = arch.substr(0, arch.find(':'));
  rocblas_handle handle = nullptr;
  if (auto s = a.create_handle(&handle); s != rocblas_status_success)
    return std::make_unique<UnavailableBlas>("rocBLAS could not start: rocblas_create_handle: " + status_text(s));
  return std::make_unique<RocBlas>(handle, arch);
}

std::vector<std::pair<std::string, std::string>> blas_versions() {
  const auto& a = api();
  if (!a.error.empty()) return {{"rocBLAS", a.error}};
  size_t len = 0;
  if (a.version_size(&len) != rocblas_status_success || len == 0) return {{"rocBLAS", "unknown (" + a.path + ")"}};
  std::string v(len, '\0');
  if (a.version_string(v.data(), len) != rocblas_status_success) return {{"rocBLAS", "unknown (" + a.path + ")"}};
  v.resize(v.find('\0') == std::string::npos ? v.size() : v.find('\0'));
  return {{"rocBLAS", v + " (" + a.path + ")"}};
}

}  // namespace dcukit::device::gpu
