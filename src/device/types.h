#pragma once
// Plain data shared by dcukit and its backends. Header-only: the GPU backends are separate
// shared libraries that include this without linking dcukit_lib.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/names.h"

namespace dcukit::device {

/// Which runtime a backend drives: the host's own cores, CUDA, or HIP (ROCm, or DTK on Hygon).
enum class BackendKind { cpu, cuda, hip };

/// The one table between BackendKind and its name (--backend, reports, libdcukit_<name>.so).
inline constexpr util::Name<BackendKind> kBackendKindNames[] = {
    {BackendKind::cpu, "cpu"}, {BackendKind::cuda, "cuda"}, {BackendKind::hip, "hip"}};

/// "cpu", "cuda", "hip".
constexpr std::string_view to_string(BackendKind k) {
  return util::name_of(kBackendKindNames, k);
}

/// The kind named `name` in kBackendKindNames, or nullopt.
constexpr std::optional<BackendKind> parse_backend_kind(std::string_view name) {
  return util::value_of(kBackendKindNames, name);
}

/// GEMM precisions. tf32 takes fp32 data and computes in the matrix units' fp32 mode;
/// fp8 is E4M3 (OCP, NVIDIA's) inputs; int8 accumulates in int32.
enum class Precision { fp64, fp32, tf32, fp16, bf16, fp8, int8 };

inline constexpr std::array<Precision, 7> kAllPrecisions = {Precision::fp64, Precision::fp32, Precision::tf32,
                                                            Precision::fp16, Precision::bf16, Precision::fp8,
                                                            Precision::int8};

/// The one table between Precision and the names users type and reports print.
inline constexpr util::Name<Precision> kPrecisionNames[] = {
    {Precision::fp64, "fp64"}, {Precision::fp32, "fp32"}, {Precision::tf32, "tf32"}, {Precision::fp16, "fp16"},
    {Precision::bf16, "bf16"}, {Precision::fp8, "fp8"},   {Precision::int8, "int8"}};

/// "fp16", "bf16", ...
constexpr std::string_view to_string(Precision p) {
  return util::name_of(kPrecisionNames, p);
}

/// The precision named `s`, or nullopt.
constexpr std::optional<Precision> parse_precision(std::string_view s) {
  return util::value_of(kPrecisionNames, s);
}

/// Bytes of one input element of A or B.
constexpr std::size_t input_size(Precision p) {
  switch (p) {
    case Precision::fp64:
      return 8;
    case Precision::fp32:
    case Precision::tf32:
      return 4;
    case Precision::fp16:
    case Precision::bf16:
      return 2;
    case Precision::fp8:
    case Precision::int8:
      return 1;
  }
  return 0;
}

/// Bytes of one output element of C: fp16/bf16 write their own type (as PyTorch's a @ b does),
/// fp8 writes fp32, int8 writes int32.
constexpr std::size_t output_size(Precision p) {
  switch (p) {
    case Precision::fp64:
      return 8;
    case Precision::fp16:
    case Precision::bf16:
      return 2;
    default:
      return 4;
  }
}

/// Where a buffer lives. Pinned host memory is page-locked for DMA; pageable is plain malloc.
enum class MemKind { device, pinned_host, pageable_host };

/// The STREAM kernels with BabelStream's definitions (scalar is 0.4 there):
/// copy c = a; scale b = s·c; add c = a + b; triad a = b + s·c; dot sum(a·b).
enum class StreamOp { copy, scale, add, triad, dot };

inline constexpr std::array<StreamOp, 5> kAllStreamOps = {StreamOp::copy, StreamOp::scale, StreamOp::add,
                                                          StreamOp::triad, StreamOp::dot};

/// The one table between StreamOp and its name.
inline constexpr util::Name<StreamOp> kStreamOpNames[] = {{StreamOp::copy, "copy"},
                                                          {StreamOp::scale, "scale"},
                                                          {StreamOp::add, "add"},
                                                          {StreamOp::triad, "triad"},
                                                          {StreamOp::dot, "dot"}};

/// "copy", "scale", "add", "triad", "dot".
constexpr std::string_view to_string(StreamOp op) {
  return util::name_of(kStreamOpNames, op);
}

/// Arrays each op touches, counted as bytes read plus written (BabelStream's weights 2,2,3,3,2).
constexpr int arrays_touched(StreamOp op) {
  return (op == StreamOp::add || op == StreamOp::triad) ? 3 : 2;
}

/// What a backend reports about one device. Fields a backend cannot know stay empty or zero;
/// dcukit fills PCIe and NUMA facts from sysfs using pci_bus_id.
struct DeviceInfo {
  int index = 0;
  std::string name;        ///< as the runtime names it: "NVIDIA H200", "BW", "Z100"
  std::string arch;        ///< "sm_90", "gfx936", or the CPU model
  std::string pci_bus_id;  ///< "0000:55:00.0" (lower case), empty where none
  std::uint64_t total_memory = 0;
  int compute_units = 0;  ///< SMs or CUs (cores on the CPU backend)
  int warp_size = 0;      ///< 32 on NVIDIA, 64 on DCU and CDNA
  int clock_mhz = 0;      ///< max core clock
  int memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  std::uint64_t l2_cache_bytes = 0;  ///< last-level cache: decides when GEMM inputs rotate
};

/// Free and total memory of a device, in bytes.
struct MemInfo {
  std::uint64_t free = 0;
  std::uint64_t total = 0;
};

/// One GEMM: C (m×n) = Aᵀ·B with every matrix column-major ("TN", the layout every precision
/// supports in cuBLASLt, hipBLASLt and rocBLAS). So C[i + j·m] = Σ_k A[k + i·k_dim]·B[k + j·k_dim]:
/// row i of the product reads A's i-th column and B's j-th column, both contiguous.
struct GemmArgs {
  Precision precision = Precision::fp32;
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;  ///< k×m, input_size(precision) per element
  const void* b = nullptr;  ///< k×n
  void* c = nullptr;        ///< m×n, output_size(precision) per element
};

}  // namespace dcukit::device
