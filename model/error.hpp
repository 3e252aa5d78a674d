// Errors as values for the plain-C++ layers (model/, config/, k8s/): an error code
// plus a message a user can act on. actors/ maps these onto caf::error.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <variant>

namespace schedopt {

enum class ec : uint8_t {
  none = 0,
  parse_error,       // malformed or truncated JSON / YAML
  type_mismatch,     // a field had the wrong JSON type
  missing_field,     // a required field was absent
  invalid_value,     // a field parsed but its value is not allowed
  invalid_duration,  // a Go duration string did not parse
  invalid_timestamp, // an RFC 3339 timestamp did not parse
  not_found,         // 404 or a missing object in a store
  conflict,          // 409 Conflict (optimistic concurrency)
  already_exists,    // 409 AlreadyExists
  invalid_request,   // 400 / 422 / 415 from the API
  unauthorized,      // 401 / 403
  gone,              // 410 Expired
  too_many_requests, // 429
  server_error,      // 5xx
  timeout,           // request or migration timeout
  transport_error,   // connection, TLS or DNS failure
  config_error,      // bad flag, environment, config file or kubeconfig
  driver_error,      // storage driver unreachable or answered nonsense
  cancelled,         // the caller went away
};

const char* to_string(ec code);

/// Prints the code's name (logs, test diagnostics).
std::ostream& operator<<(std::ostream& out, ec code);

struct error {
  ec code = ec::none;
  std::string message;
  int http_status = 0; // the HTTP status behind the error, 0 when none
};

/// Holds either a value or an error; the model's stand-in for caf::expected.
template <class T>
class expected {
public:
  expected(T value) : value_(std::move(value)) {}
  expected(error err) : value_(std::move(err)) {}

  explicit operator bool() const { return std::holds_alternative<T>(value_); }
  bool has_value() const { return std::holds_alternative<T>(value_); }

  T& operator*() { return std::get<T>(value_); }
  const T& operator*() const { return std::get<T>(value_); }
  T* operator->() { return &std::get<T>(value_); }
  const T* operator->() const { return &std::get<T>(value_); }
  T& value() { return std::get<T>(value_); }
  const T& value() const { return std::get<T>(value_); }

  const error& err() const { return std::get<error>(value_); }

private:
  std::variant<T, error> value_;
};

inline error make_error(ec code, std::string message, int http_status = 0) {
  return error{code, std::move(message), http_status};
}

} // namespace schedopt
