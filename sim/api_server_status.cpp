// Status bodies; reasons follow apimachinery's metav1.StatusReason values.
#include "sim/api_server_status.hpp"

#include <httplib.h>

#include "sim/discovery.hpp"
#include "sim/field_errors.hpp"

namespace schedopt::sim {

std::string status_reason(int http_status, ec code) {
  switch (http_status) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return code == ec::already_exists ? "AlreadyExists" : "Conflict";
    case 410: return "Expired";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "InternalError";
  }
}

nlohmann::json status_failure(int code, const std::string& reason, const std::string& message,
                              const nlohmann::json& details) {
  nlohmann::json s = {{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", nlohmann::json::object()},
                      {"status", "Failure"},
                      {"message", message},
                      {"reason", reason}};
  if (!details.is_null())
    s["details"] = details;
  s["code"] = code;
  return s;
}

int status_code_of(const error& err) {
  if (err.http_status != 0)
    return err.http_status;
  switch (err.code) {
    case ec::not_found: return 404;
    case ec::conflict:
    case ec::already_exists: return 409;
    case ec::invalid_value: return 422;
    case ec::invalid_request:
    case ec::parse_error:
    case ec::type_mismatch:
    case ec::missing_field: return 400;
    case ec::gone: return 410;
    case ec::unauthorized: return 401;
    case ec::too_many_requests: return 429;
    default: return 500;
  }
}

nlohmann::json status_for_error(const error& err, const served_resource* resource,
                                const std::string& name) {
  int code = status_code_of(err);
  auto reason = status_reason(code, err.code);
  auto [message, attached] = split_status_details(err);
  if (!attached.is_null())
    return status_failure(code, reason, message, attached);
  nlohmann::json details = nullptr;
  if (resource != nullptr && (code == 404 || code == 409 || code == 422)) {
    details = nlohmann::json::object();
    if (!name.empty())
      details["name"] = name;
    if (!resource->type.group.empty())
      details["group"] = resource->type.group;
    details["kind"] = code == 422 ? resource->type.kind : resource->type.plural;
  }
  return status_failure(code, reason, message, details);
}

void send_json(httplib::Response& res, int code, const nlohmann::json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

} // namespace schedopt::sim
