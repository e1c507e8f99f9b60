#include "plan/settings.h"

#include "util/names.h"

namespace dcukit::plan {
namespace {

constexpr util::Name<Dtype> kDtypeNames[] = {
    {Dtype::automatic, "auto"}, {Dtype::bfloat16, "bfloat16"}, {Dtype::float16, "float16"}, {Dtype::float32, "float32"},
    {Dtype::float16, "half"},   {Dtype::float32, "float"},     {Dtype::bfloat16, "bf16"},   {Dtype::float16, "fp16"},
};

constexpr util::Name<KvCacheDtype> kKvNames[] = {
    {KvCacheDtype::automatic, "auto"},
    {KvCacheDtype::fp8, "fp8"},
    {KvCacheDtype::fp8_e4m3, "fp8_e4m3"},
    {KvCacheDtype::fp8_e5m2, "fp8_e5m2"},
};

}  // namespace

std::string_view to_string(Dtype dtype) {
  return util::name_of(kDtypeNames, dtype, "auto");
}

std::optional<Dtype> parse_dtype(std::string_view text) {
  return util::value_of(kDtypeNames, text);
}

std::string_view to_string(KvCacheDtype dtype) {
  return util::name_of(kKvNames, dtype, "auto");
}

std::optional<KvCacheDtype> parse_kv_cache_dtype(std::string_view text) {
  return util::value_of(kKvNames, text);
}

bool is_fp8(KvCacheDtype dtype) {
  return dtype != KvCacheDtype::automatic;
}

int kv_element_bytes(KvCacheDtype dtype) {
  return is_fp8(dtype) ? 1 : 2;
}

}  // namespace dcukit::plan
