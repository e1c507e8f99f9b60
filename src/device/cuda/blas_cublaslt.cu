// GEMM through cuBLASLt (CUDA only; the HIP build uses hip/blas_rocblas.cu). Every precision
// of Precision goes through Lt, cuBLAS proper is not needed: fp64 and int8 (32I compute,
// int32 out, TN as Lt requires) and fp8 E4M3 (sm_89+, fp32 out, TN as Lt requires) included.
// libcublasLt is linked normally into libdcukit_cuda.so (which dcukit itself dlopens), so a
// host without it gets the dynamic loader's message when the backend loads.
#include <cublasLt.h>

#include <cstdlib>
#include <map>
#include <tuple>

#include "device/cuda/blas.cuh"

namespace dcukit::device::gpu {

inline bool status_ok(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS;
}
inline std::string status_text(cublasStatus_t s) {
  return std::string(cublasLtGetStatusName(s)) + ": " + cublasLtGetStatusString(s);
}

namespace {

/// The cuBLASLt types of one precision.
struct LtTypes {
  cublasComputeType_t compute;
  cudaDataType_t scale, ab, c;
};

LtTypes lt_types(Precision p) {
  switch (p) {
    case Precision::fp64:
      return {CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, CUDA_R_64F};
    case Precision::fp32:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F};
    case Precision::tf32:
      return {CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F};
    case Precision::fp16:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16F, CUDA_R_16F};
    case Precision::bf16:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_16BF, CUDA_R_16BF};
    case Precision::fp8:
      return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_8F_E4M3, CUDA_R_32F};
    case Precision::int8:
      return {CUBLAS_COMPUTE_32I, CUDA_R_32I, CUDA_R_8I, CUDA_R_32I};
  }
  return {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F};
}

/// alpha = 1 and beta = 0 in the scale type of the precision.
struct Scalars {
  double f64[2] = {1.0, 0.0};
  float f32[2] = {1.0f, 0.0f};
  int i32[2] = {1, 0};
  const void* alpha(cudaDataType_t t) const {
    return t == CUDA_R_64F ? (const void*)&f64[0] : t == CUDA_R_32I ? (const void*)&i32[0] : (const void*)&f32[0];
  }
  const void* beta(cudaDataType_t t) const {
    return t == CUDA_R_64F ? (const void*)&f64[1] : t == CUDA_R_32I ? (const void*)&i32[1] : (const void*)&f32[1];
  }
};
const Scalars kScalars;

/// 64 MiB: more than any Hopper/Blackwell heuristic asks for at the sizes we run.
constexpr std::size_t kWorkspaceBytes = 64ull << 20;

/// The descriptors and chosen algorithm of one (precision, m, n, k), owned (RAII).
struct Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  LtTypes types{};
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (c) (void)cublasLtMatrixLayoutDestroy(c);
    if (b) (void)cublasLtMatrixLayoutDestroy(b);
    if (a) (void)cublasLtMatrixLayoutDestroy(a);
    if (op) (void)cublasLtMatmulDescDestroy(op);
  }
};

/// Destroys a matmul preference when the scope ends.
struct PreferenceGuard {
  cublasLtMatmulPreference_t pref;
  ~PreferenceGuard() { (void)cublasLtMatmulPreferenceDestroy(pref); }
};

/// Destroys two events (either may still be null) when the scope ends.
struct EventPairGuard {
  cudaEvent_t& a;
  cudaEvent_t& b;
  ~EventPairGuard() {
    if (a) (void)cudaEventDestroy(a);
    if (b) (void)cudaEventDestroy(b);
  }
};

constexpr int kMaxAlgos = 32;

/// The pointer's alignment in bytes, capped at 256 (what cuBLASLt asks about).
std::uint32_t alignment(const void* p) {
  const auto v = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t a = 256;
  while (a > 1 && v % a != 0) a /= 2;
  return a;
}

/// Heuristic candidates to time on a shape's first call: $DCUKIT_GEMM_ALGOS (1..32), default
/// 1 = take cuBLASLt's first choice, as PyTorch does.
int algos_to_try() {
  const char* env = std::getenv("DCUKIT_GEMM_ALGOS");
  int n = env ? std::atoi(env) : 1;
  return n < 1 ? 1 : n > kMaxAlgos ? kMaxAlgos : n;
}

class LtBlas final : public Blas {
public:
  LtBlas(cublasLtHandle_t handle, int cc_major, int cc_minor) : m_handle(handle), m_cc(cc_major * 10 + cc_minor) {}
  ~LtBlas() override {
    m_plans.clear();
    if (m_workspace) (void)cudaFree(m_workspace);
    (void)cublasLtDestroy(m_handle);
  }

  std::string unsupported(Precision p) override {
    const std::string cc = std::to_string(m_cc / 10) + "." + std::to_string(m_cc % 10);
    switch (p) {
      case Precision::fp8:
        if (m_cc < 89) return "fp8 needs compute capability 8.9+; this device is " + cc;
        return {};
      case Precision::bf16:
      case Precision::tf32:
        if (m_cc < 80) return std::string(to_string(p)) + " needs compute capability 8.0+; this device is " + cc;
        return {};
      case Precision::int8:
        if (m_cc < 75) return "int8 tensor-core GEMM needs compute capability 7.5+; this device is " + cc;
        return {};
      default:
        return {};
    }
  }

  Status gemm(const GemmArgs& args, cudaStream_t stream) override {
    if (auto st = check_gemm_args(args); !st) return st;
    if (auto why = unsupported(args.precision); !why.empty()) return Error{"gemm: " + why};
    if (!m_workspace) DCUKIT_CHECK(cudaMalloc(&m_workspace, kWorkspaceBytes));
    // Plans assume the pointers' alignment (up to 256 bytes), so it is part of the key.
    auto key = std::make_tuple(args.precision, args.m, args.n, args.k, alignment(args.a), alignment(args.b),
                               alignment(args.c));
    auto it = m_plans.find(key);
    if (it == m_plans.end()) {
      auto plan = std::make_unique<Plan>();
      if (auto st = make_plan(args, stream, *plan); !st) return st;
      it = m_plans.emplace(key, std::move(plan)).first;
    }
    return run(*it->second, args, it->second->algo, stream);
  }

private:
  Status run(const Plan& p, const GemmArgs& args, const cublasLtMatmulAlgo_t& algo, cudaStream_t stream) {
    DCUKIT_CHECK(cublasLtMatmul(m_handle, p.op, kScalars.alpha(p.types.scale), args.a, p.a, args.b, p.b,
                                kScalars.beta(p.types.scale), args.c, p.c, args.c, p.c, &algo, m_workspace,
                                kWorkspaceBytes, stream));
    return {};
  }

  Status make_plan(const GemmArgs& args, cudaStream_t stream, Plan& p) {
    p.types = lt_types(args.precision);
    DCUKIT_CHECK(cublasLtMatmulDescCreate(&p.op, p.types.compute, p.types.scale));
    const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    DCUKIT_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)));
    DCUKIT_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)));
    // A is k×m (used transposed), B is k×n, C is m×n; all column-major and packed.
    DCUKIT_CHECK(cublasLtMatrixLayoutCreate(&p.a, p.types.ab, args.k, args.m, args.k));
    DCUKIT_CHECK(cublasLtMatrixLayoutCreate(&p.b, p.types.ab, args.k, args.n, args.k));
    DCUKIT_CHECK(cublasLtMatrixLayoutCreate(&p.c, p.types.c, args.m, args.n, args.m));

    cublasLtMatmulPreference_t pref = nullptr;
    DCUKIT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    PreferenceGuard guard{pref};
    const std::uint64_t ws = kWorkspaceBytes;
    DCUKIT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    const std::uint32_t align_a = alignment(args.a), align_b = alignment(args.b), align_c = alignment(args.c);
    DCUKIT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a,
                                                      sizeof(align_a)));
    DCUKIT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b,
                                                      sizeof(align_b)));
    DCUKIT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c,
                                                      sizeof(align_c)));
    DCUKIT_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c,
                                                      sizeof(align_c)));
    const int wanted = algos_to_try();
    // A plain array: nvcc 13's front end crashes on std::vector of these C structs in C++20.
    cublasLtMatmulHeuristicResult_t found[kMaxAlgos] = {};
    int returned = 0;
    DCUKIT_CHECK(cublasLtMatmulAlgoGetHeuristic(m_handle, p.op, p.a, p.b, p.c, p.c, pref, wanted, found, &returned));
    if (returned < 1)
      return Error{"cuBLASLt has no algorithm for " + std::string(to_string(args.precision)) +
                   " m=" + std::to_string(args.m) + " n=" + std::to_string(args.n) + " k=" + std::to_string(args.k)};
    p.algo = found[0].algo;
    if (returned > 1) return pick_fastest(p, args, found, returned, stream);
    return {};
  }

  /// Times each candidate (one warm-up, three timed runs) and keeps the fastest. Blocks, once
  /// per shape, with a deadline; only when $DCUKIT_GEMM_ALGOS asks for more than one.
  Status pick_fastest(Plan& p, const GemmArgs& args, const cublasLtMatmulHeuristicResult_t* found, int returned,
                      cudaStream_t stream) {
    cudaEvent_t start = nullptr, stop = nullptr;
    DCUKIT_CHECK(cudaEventCreate(&start));
    EventPairGuard guard{start, stop};
    DCUKIT_CHECK(cudaEventCreate(&stop));
    float best = -1;
    for (int i = 0; i < returned; ++i) {
      if (found[i].state != CUBLAS_STATUS_SUCCESS) continue;
      if (!run(p, args, found[i].algo, stream)) continue;  // a candidate that fails to launch is skipped
      DCUKIT_CHECK(cudaEventRecord(start, stream));
      for (int r = 0; r < 3; ++r)
        if (auto st = run(p, args, found[i].algo, stream); !st) return st;
      DCUKIT_CHECK(cudaEventRecord(stop, stream));
      const auto e = poll_until([&] { return cudaEventQuery(stop); }, std::chrono::seconds(60));
      if (e == cudaErrorNotReady) return Error{"cuda: timing cuBLASLt candidates did not finish within 60 s"};
      DCUKIT_CHECK(e);
      float ms = 0;
      DCUKIT_CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (best < 0 || ms < best) {
        best = ms;
        p.algo = found[i].algo;
      }
    }
    return {};
  }

  cublasLtHandle_t m_handle;
  int m_cc;
  void* m_workspace = nullptr;
  std::map<std::tuple<Precision, int, int, int, unsigned, unsigned, unsigned>, std::unique_ptr<Plan>> m_plans;
};

std::string version_text(std::size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

}  // namespace

std::unique_ptr<Blas> make_blas(int device) {
  cudaDeviceProp prop{};
  if (auto e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess)
    return std::make_unique<UnavailableBlas>("cuda: cudaGetDeviceProperties failed: " + status_text(e));
  cublasLtHandle_t handle = nullptr;
  if (auto s = cublasLtCreate(&handle); s != CUBLAS_STATUS_SUCCESS)
    return std::make_unique<UnavailableBlas>("cuBLASLt could not start: cublasLtCreate: " + status_text(s));
  return std::make_unique<LtBlas>(handle, prop.major, prop.minor);
}

std::vector<std::pair<std::string, std::string>> blas_versions() {
  return {{"cuBLASLt", version_text(cublasLtGetVersion())}, {"cuBLASLt built against", version_text(CUBLAS_VERSION)}};
}

}  // namespace dcukit::device::gpu
