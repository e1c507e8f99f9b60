#pragma once
// Host references for dcukit_gpu_selftest: number formats (fp16, bf16, fp8 E4M3) and the
// float64 results the GPU kernels and GEMMs are checked against.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device/types.h"

namespace selftest {

std::uint16_t to_fp16(float f);
float from_fp16(std::uint16_t h);
std::uint16_t to_bf16(float f);
float from_bf16(std::uint16_t h);
/// OCP E4M3 (NVIDIA's __nv_fp8_e4m3): nearest representable, saturating to ±448.
std::uint8_t to_e4m3(float f);
float from_e4m3(std::uint8_t v);

/// Values exactly representable in every input format (j/4 for |j| ≤ 8, or integers for int8).
std::vector<double> gemm_inputs(std::size_t count, dcukit::device::Precision p, std::uint32_t seed);

/// Encodes values as the input type of `p` (input_size(p) bytes each).
std::vector<unsigned char> encode_inputs(const std::vector<double>& v, dcukit::device::Precision p);
/// Decodes `count` outputs of `p` (output_size(p) bytes each) to double.
std::vector<double> decode_outputs(const std::vector<unsigned char>& bytes, std::size_t count,
                                   dcukit::device::Precision p);
/// Tolerance of one output element of `p`, relative to Σ_l |a_l·b_l| (the usual GEMM error
/// bound): the rounding of the output type, or of fp8's reduced-precision accumulation.
double gemm_tolerance(dcukit::device::Precision p);

/// C = Aᵀ·B in float64, TN column-major as GemmArgs; `abs_sums` gets Σ_l |a_l·b_l| per element.
std::vector<double> gemm_reference(const std::vector<double>& a, const std::vector<double>& b, int m, int n, int k,
                                   std::vector<double>* abs_sums = nullptr);

/// Checks the format conversions and the reference on known values; returns what failed, or "".
std::string check_reference();

}  // namespace selftest
