#include "load/records.h"

#include "util/names.h"

namespace dcukit::load {
namespace {

constexpr util::Name<ErrorClass> kErrorClassNames[] = {
    {ErrorClass::none, "none"},
    {ErrorClass::http_status, "http_status"},
    {ErrorClass::timeout, "timeout"},
    {ErrorClass::cancelled, "cancelled"},
    {ErrorClass::protocol, "protocol"},
    {ErrorClass::dropped, "dropped"},
    {ErrorClass::stream_error, "stream_error"},
    {ErrorClass::connect, "connect"},
};

constexpr util::Name<ShapeKind> kShapeKindNames[] = {{ShapeKind::closed, "closed"}, {ShapeKind::open, "open"}};

}  // namespace

std::string_view to_string(ErrorClass c) {
  return util::name_of(kErrorClassNames, c, "unknown");
}

std::optional<ErrorClass> parse_error_class(std::string_view name) {
  return util::value_of(kErrorClassNames, name);
}

std::string_view to_string(ShapeKind k) {
  return util::name_of(kShapeKindNames, k);
}

}  // namespace dcukit::load
