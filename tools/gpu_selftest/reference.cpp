#include "gpu_selftest/reference.h"

#include "core/numeric.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

namespace selftest {

using dcukit::device::Precision;

// The number formats are core/numeric.h's, the ones bench fills and checks its data with.
std::uint16_t to_fp16(float f) { return dcukit::core::float_to_half(f); }
float from_fp16(std::uint16_t h) { return dcukit::core::half_to_float(h); }
std::uint16_t to_bf16(float f) { return dcukit::core::float_to_bf16(f); }
float from_bf16(std::uint16_t h) { return dcukit::core::bf16_to_float(h); }
std::uint8_t to_e4m3(float f) { return dcukit::core::float_to_e4m3(f); }
float from_e4m3(std::uint8_t v) { return dcukit::core::e4m3_to_float(v); }

std::vector<double> gemm_inputs(std::size_t count, Precision p, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> v(count);
  for (auto& x : v) {
    int j = dist(rng);
    if (j == 0) j = 1;  // never zeros: a dropped term must change the result
    x = p == Precision::int8 ? double(j) : j / 4.0;
  }
  return v;
}

std::vector<unsigned char> encode_inputs(const std::vector<double>& v, Precision p) {
  const std::size_t es = dcukit::device::input_size(p);
  std::vector<unsigned char> out(v.size() * es);
  for (std::size_t i = 0; i < v.size(); ++i) {
    unsigned char* dst = out.data() + i * es;
    switch (p) {
      case Precision::fp64: {
        double d = v[i];
        std::memcpy(dst, &d, 8);
        break;
      }
      case Precision::fp32:
      case Precision::tf32: {
        float f = float(v[i]);
        std::memcpy(dst, &f, 4);
        break;
      }
      case Precision::fp16: {
        auto h = to_fp16(float(v[i]));
        std::memcpy(dst, &h, 2);
        break;
      }
      case Precision::bf16: {
        auto h = to_bf16(float(v[i]));
        std::memcpy(dst, &h, 2);
        break;
      }
      case Precision::fp8:
        *dst = to_e4m3(float(v[i]));
        break;
      case Precision::int8: {
        auto c = std::int8_t(v[i]);
        std::memcpy(dst, &c, 1);
        break;
      }
    }
  }
  return out;
}

std::vector<double> decode_outputs(const std::vector<unsigned char>& bytes, std::size_t count, Precision p) {
  const std::size_t es = dcukit::device::output_size(p);
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const unsigned char* src = bytes.data() + i * es;
    switch (p) {
      case Precision::fp64: {
        double d;
        std::memcpy(&d, src, 8);
        out[i] = d;
        break;
      }
      case Precision::fp16: {
        std::uint16_t h;
        std::memcpy(&h, src, 2);
        out[i] = from_fp16(h);
        break;
      }
      case Precision::bf16: {
        std::uint16_t h;
        std::memcpy(&h, src, 2);
        out[i] = from_bf16(h);
        break;
      }
      case Precision::int8: {
        std::int32_t x;
        std::memcpy(&x, src, 4);
        out[i] = x;
        break;
      }
      default: {
        float f;
        std::memcpy(&f, src, 4);
        out[i] = f;
        break;
      }
    }
  }
  return out;
}

double gemm_tolerance(Precision p) {
  // Inputs are exact and every partial sum is a multiple of 1/16 below 2^14, so an fp32 or
  // wider accumulator is exact; what remains is the output rounding, and for fp8 the tensor
  // cores' narrower accumulator.
  switch (p) {
    case Precision::fp16:
      return std::ldexp(1.0, -10);
    case Precision::bf16:
      return std::ldexp(1.0, -7);
    case Precision::fp8:
      return std::ldexp(1.0, -10);
    case Precision::int8:
      return 0;
    default:
      return 1e-6;
  }
}

std::vector<double> gemm_reference(const std::vector<double>& a, const std::vector<double>& b, int m, int n, int k,
                                   std::vector<double>* abs_sums) {
  std::vector<double> c(std::size_t(m) * n);
  if (abs_sums) abs_sums->assign(c.size(), 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double s = 0, as = 0;
      for (int l = 0; l < k; ++l) {
        const double prod = a[std::size_t(i) * k + l] * b[std::size_t(j) * k + l];
        s += prod;
        as += std::fabs(prod);
      }
      c[std::size_t(j) * m + i] = s;
      if (abs_sums) (*abs_sums)[std::size_t(j) * m + i] = as;
    }
  return c;
}

std::string check_reference() {
  std::string bad;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) bad += std::string(bad.empty() ? "" : "; ") + what;
  };
  expect(to_fp16(1.0f) == 0x3c00 && to_fp16(-2.0f) == 0xc000 && to_fp16(65504.0f) == 0x7bff, "to_fp16");
  expect(from_fp16(0x3c00) == 1.0f && from_fp16(0x0001) == std::ldexp(1.0f, -24), "from_fp16");
  expect(to_bf16(1.0f) == 0x3f80 && to_bf16(-0.25f) == 0xbe80, "to_bf16");
  expect(from_bf16(0x3f80) == 1.0f, "from_bf16");
  expect(to_e4m3(1.0f) == 0x38 && to_e4m3(448.0f) == 0x7e && to_e4m3(-1.75f) == 0xbe && to_e4m3(1000.0f) == 0x7e,
         "to_e4m3");
  expect(from_e4m3(0x38) == 1.0f && from_e4m3(0x01) == std::ldexp(1.0f, -9) && std::isnan(from_e4m3(0x7f)),
         "from_e4m3");
  for (Precision p : dcukit::device::kAllPrecisions) {
    const auto v = gemm_inputs(64, p, 3);
    const auto enc = encode_inputs(v, p);
    // Round trip through the output decoder where the formats agree (fp64/fp32/fp16/bf16).
    if (p == Precision::fp64 || p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp32) {
      const auto dec = decode_outputs(enc, v.size(), p);
      expect(dec == v, "encode/decode round trip");
    }
  }
  // [1 2; 3 4] stored as A (k×m, column i is row i of Aᵀ) times B = I.
  const std::vector<double> a = {1, 2, 3, 4}, id = {1, 0, 0, 1};
  const auto c = gemm_reference(a, id, 2, 2, 2);
  expect(c == std::vector<double>({1, 3, 2, 4}), "gemm_reference");
  return bad;
}

}  // namespace selftest
