#include "device/gemm_data.h"

#include <cmath>
#include <cstring>

#include "core/numeric.h"
#include "device/cpu/parallel.h"

namespace dcukit::device {


namespace {

// fp8 data is drawn as codes directly (magnitudes up to 1.0 = 0x38, either sign): exact, and
// far cheaper than rounding a float for each of 150 million elements.
std::uint8_t fp8_code(std::uint64_t seed, std::uint64_t index) {
  const std::uint64_t r = core::splitmix64(seed * 0x100000001B3ull ^ index);
  return static_cast<std::uint8_t>(((r >> 8) & 1u) << 7 | (r % 0x39u));
}

}  // namespace

double element_value(Precision p, std::uint64_t seed, std::uint64_t index) {
  const double r = core::random_unit(seed, index);
  switch (p) {
    case Precision::fp64:
      return r;
    case Precision::fp32:
    case Precision::tf32:
      return static_cast<float>(r);
    case Precision::fp16:
      return core::half_to_float(core::float_to_half(static_cast<float>(r)));
    case Precision::bf16:
      return core::bf16_to_float(core::float_to_bf16(static_cast<float>(r)));
    case Precision::fp8:
      return core::e4m3_to_float(fp8_code(seed, index));
    case Precision::int8:
      return std::floor(r * 8.5 + 0.5) == 9 ? 8 : std::floor(r * 8.5 + 0.5);
  }
  return 0;
}

void generate(Precision p, std::uint64_t seed, std::size_t count, void* dst) {
  device::cpu::parallel_for(count, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const double v = element_value(p, seed, i);
      switch (p) {
        case Precision::fp64:
          static_cast<double*>(dst)[i] = v;
          break;
        case Precision::fp32:
        case Precision::tf32:
          static_cast<float*>(dst)[i] = static_cast<float>(v);
          break;
        case Precision::fp16:
          static_cast<std::uint16_t*>(dst)[i] = core::float_to_half(static_cast<float>(v));
          break;
        case Precision::bf16:
          static_cast<std::uint16_t*>(dst)[i] = core::float_to_bf16(static_cast<float>(v));
          break;
        case Precision::fp8:
          static_cast<std::uint8_t*>(dst)[i] = fp8_code(seed, i);
          break;
        case Precision::int8:
          static_cast<std::int8_t*>(dst)[i] = static_cast<std::int8_t>(v);
          break;
      }
    }
  });
}

double output_value(Precision p, const void* data, std::size_t index) {
  switch (p) {
    case Precision::fp64:
      return static_cast<const double*>(data)[index];
    case Precision::fp16:
      return core::half_to_float(static_cast<const std::uint16_t*>(data)[index]);
    case Precision::bf16:
      return core::bf16_to_float(static_cast<const std::uint16_t*>(data)[index]);
    case Precision::int8:
      return static_cast<const std::int32_t*>(data)[index];
    default:
      return static_cast<const float*>(data)[index];
  }
}

}  // namespace dcukit::device
