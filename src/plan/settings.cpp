#include "plan/settings.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

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

constexpr std::int64_t kMaxItems = 1 << 20;  // items of a modality a prompt may hold

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

Result<MmLimits> parse_mm_limits(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Error{fmt::format("--limit-mm-per-prompt {}: {}; write {{\"image\": 2, \"video\": 0}} or image=2,video=0",
                             text, why)};
  };
  MmLimits out;
  nlohmann::json sized = nlohmann::json::object();
  auto put = [&](std::string_view key, std::int64_t n) -> bool {
    if (n < 0 || n > kMaxItems) return false;
    if (key == "image") out.images = n;
    if (key == "video") out.videos = n;
    return key == "image" || key == "video" || key == "audio";
  };
  const auto first = text.find_first_not_of(" \t");
  if (first != std::string_view::npos && text[first] == '{') {
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) return bad("not a JSON object");
    for (const auto& [key, value] : j.items()) {
      // 0.11.1+'s options: {"count": N, "width": W, "height": H, "num_frames": F, "length": L}
      // (count defaults to vLLM's 999).
      if (value.is_object()) {
        std::int64_t count = 999;
        for (const auto& [field, v] : value.items()) {
          const bool size = field == "width" || field == "height" || field == "num_frames" || field == "length";
          if ((field != "count" && !size) || !v.is_number_integer() || v.get<std::int64_t>() < (size ? 1 : 0))
            return bad(
                fmt::format("\"{}\": {{\"{}\": ...}} is not count, width, height, num_frames or length "
                            "with a whole number",
                            key, field));
          if (field == "count") count = v.get<std::int64_t>();
        }
        if (!put(key, count))
          return bad(fmt::format("\"{}\" is not image, video or audio with a count of 0 to {}", key, kMaxItems));
        if (value.size() > (value.contains("count") ? 1u : 0u)) sized[key] = value;
        continue;
      }
      if (!value.is_number_integer() || !put(key, value.get<std::int64_t>()))
        return bad(fmt::format("\"{}\" is not image, video or audio with a count of 0 to {}", key, kMaxItems));
    }
    if (!sized.empty()) out.dummy_sizes = j.dump();
  } else {
    std::size_t pos = 0;
    while (pos < text.size()) {
      const auto end = std::min(text.find(',', pos), text.size());
      const auto item = text.substr(pos, end - pos);
      const auto eq = item.find('=');
      std::int64_t n = -1;
      const auto num = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
      const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
      if (eq == std::string_view::npos || ec != std::errc() || p != num.data() + num.size() ||
          !put(item.substr(0, eq), n))
        return bad(fmt::format("'{}' is not image=N, video=N or audio=N (N 0 to {})", item, kMaxItems));
      pos = end + 1;
    }
  }
  return out;
}

std::string mm_limits_flag(const MmLimits& limits) {
  if (!limits.dummy_sizes.empty()) return limits.dummy_sizes;
  std::string value;
  for (auto [name, n] : {std::pair{"image", limits.images}, {"video", limits.videos}})
    if (n) value += fmt::format("{}\"{}\": {}", value.empty() ? "" : ", ", name, *n);
  return value.empty() ? value : "{" + value + "}";
}

bool is_fp8(KvCacheDtype dtype) {
  return dtype != KvCacheDtype::automatic;
}

int kv_element_bytes(KvCacheDtype dtype) {
  return is_fp8(dtype) ? 1 : 2;
}

}  // namespace dcukit::plan
