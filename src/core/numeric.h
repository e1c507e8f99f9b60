#pragma once
// Host-side number formats for GPU data: IEEE fp16, bfloat16 and fp8 E4M3 (OCP, NVIDIA's),
// with round-to-nearest-even, and a counter-based random generator so that any element of a
// generated matrix can be recomputed on the host without storing it.
#include <bit>
#include <cmath>
#include <cstdint>

namespace dcukit::core {

/// float -> IEEE binary16 bits, round to nearest even; overflow gives infinity.
inline std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (e <= 0) {
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | h);
}

/// IEEE binary16 bits -> float (exact).
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0) return std::bit_cast<float>(sign) + (sign ? -1.f : 1.f) * std::ldexp(static_cast<float>(mant), -24);
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

/// float -> bfloat16 bits, round to nearest even.
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

/// bfloat16 bits -> float (exact).
inline float bf16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

/// fp8 E4M3 bits -> float (exact): bias 7, no infinities, 0x7F/0xFF are NaN, max 448.
inline float e4m3_to_float(std::uint8_t v) {
  const float sign = (v & 0x80u) ? -1.f : 1.f;
  const int exp = (v >> 3) & 0xF, mant = v & 0x7;
  if (exp == 0xF && mant == 0x7) return NAN;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -9);
  return sign * std::ldexp(1.f + static_cast<float>(mant) / 8.f, exp - 7);
}

/// float -> fp8 E4M3 bits, round to nearest even, saturating at ±448.
inline std::uint8_t float_to_e4m3(float f) {
  if (std::isnan(f)) return 0x7F;
  std::uint8_t best = 0;
  float best_err = INFINITY;
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const float a = std::fabs(f);
  for (int v = 0; v < 0x7F; ++v) {  // 127 magnitudes: a search keeps this obviously right
    const float err = std::fabs(e4m3_to_float(static_cast<std::uint8_t>(v)) - a);
    if (err < best_err || (err == best_err && (v & 1) == 0)) best_err = err, best = static_cast<std::uint8_t>(v);
  }
  return static_cast<std::uint8_t>(sign | best);
}

/// SplitMix64: a stateless generator. random_unit(seed, i) is uniform in [-1, 1) and depends
/// only on (seed, i), so threads fill disjoint ranges and checks recompute single elements.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline double random_unit(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t r = splitmix64(seed * 0x100000001B3ull ^ index);
  return static_cast<double>(r >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

} // namespace dcukit::core
