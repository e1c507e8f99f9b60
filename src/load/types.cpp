#include "load/types.h"

#include <utility>

namespace dcukit::load {
namespace {

constexpr std::pair<ErrorClass, std::string_view> kErrorClassNames[] = {
    {ErrorClass::none, "none"},
    {ErrorClass::http_status, "http_status"},
    {ErrorClass::timeout, "timeout"},
    {ErrorClass::cancelled, "cancelled"},
    {ErrorClass::protocol, "protocol"},
    {ErrorClass::dropped, "dropped"},
    {ErrorClass::stream_error, "stream_error"},
    {ErrorClass::connect, "connect"},
};

}  // namespace

std::string_view to_string(ErrorClass c) {
  for (const auto& [k, name] : kErrorClassNames)
    if (k == c) return name;
  return "unknown";
}

std::optional<ErrorClass> error_class_from_string(std::string_view name) {
  for (const auto& [k, n] : kErrorClassNames)
    if (n == name) return k;
  return std::nullopt;
}

std::string_view to_string(ShapeKind k) {
  return k == ShapeKind::closed ? "closed" : "open";
}

}  // namespace dcukit::load
