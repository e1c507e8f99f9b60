#include "plan/settings.h"

namespace dcukit::plan {
namespace {

/// One table a type: the first entry of a value is its vLLM spelling; later ones are aliases.
struct DtypeName {
  Dtype dtype;
  std::string_view name;
};
constexpr DtypeName kDtypeNames[] = {
    {Dtype::automatic, "auto"}, {Dtype::bfloat16, "bfloat16"}, {Dtype::float16, "float16"}, {Dtype::float32, "float32"},
    {Dtype::float16, "half"},   {Dtype::float32, "float"},     {Dtype::bfloat16, "bf16"},   {Dtype::float16, "fp16"},
};

struct KvName {
  KvCacheDtype dtype;
  std::string_view name;
};
constexpr KvName kKvNames[] = {
    {KvCacheDtype::automatic, "auto"},
    {KvCacheDtype::fp8, "fp8"},
    {KvCacheDtype::fp8_e4m3, "fp8_e4m3"},
    {KvCacheDtype::fp8_e5m2, "fp8_e5m2"},
};

}  // namespace

std::string_view to_string(Dtype dtype) {
  for (const auto& n : kDtypeNames)
    if (n.dtype == dtype) return n.name;
  return "auto";
}

std::optional<Dtype> dtype_from_string(std::string_view text) {
  for (const auto& n : kDtypeNames)
    if (n.name == text) return n.dtype;
  return std::nullopt;
}

std::string_view to_string(KvCacheDtype dtype) {
  for (const auto& n : kKvNames)
    if (n.dtype == dtype) return n.name;
  return "auto";
}

std::optional<KvCacheDtype> kv_cache_dtype_from_string(std::string_view text) {
  for (const auto& n : kKvNames)
    if (n.name == text) return n.dtype;
  return std::nullopt;
}

bool is_fp8(KvCacheDtype dtype) {
  return dtype != KvCacheDtype::automatic;
}

int kv_element_bytes(KvCacheDtype dtype) {
  return is_fp8(dtype) ? 1 : 2;
}

}  // namespace dcukit::plan
