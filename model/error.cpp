// Names of the model's error codes, for logs and user-facing messages.
#include "model/error.hpp"

#include <ostream>

namespace schedopt {

const char* to_string(ec code) {
  switch (code) {
    case ec::none: return "none";
    case ec::parse_error: return "parse_error";
    case ec::type_mismatch: return "type_mismatch";
    case ec::missing_field: return "missing_field";
    case ec::invalid_value: return "invalid_value";
    case ec::invalid_duration: return "invalid_duration";
    case ec::invalid_timestamp: return "invalid_timestamp";
    case ec::not_found: return "not_found";
    case ec::conflict: return "conflict";
    case ec::already_exists: return "already_exists";
    case ec::invalid_request: return "invalid_request";
    case ec::unauthorized: return "unauthorized";
    case ec::gone: return "gone";
    case ec::too_many_requests: return "too_many_requests";
    case ec::server_error: return "server_error";
    case ec::timeout: return "timeout";
    case ec::transport_error: return "transport_error";
    case ec::config_error: return "config_error";
    case ec::driver_error: return "driver_error";
    case ec::cancelled: return "cancelled";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& out, ec code) {
  return out << to_string(code);
}

} // namespace schedopt
