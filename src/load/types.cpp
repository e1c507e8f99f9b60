#include "load/types.h"

namespace dcukit::load {

std::string_view error_class_name(ErrorClass c) {
  switch (c) {
    case ErrorClass::none:
      return "none";
    case ErrorClass::http_status:
      return "http_status";
    case ErrorClass::timeout:
      return "timeout";
    case ErrorClass::protocol:
      return "protocol";
    case ErrorClass::dropped:
      return "dropped";
    case ErrorClass::stream_error:
      return "stream_error";
    case ErrorClass::connect:
      return "connect";
  }
  return "unknown";
}

}  // namespace dcukit::load
