// metav1.Status error bodies exactly as the Kubernetes API server shapes them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace httplib {
struct Response;
}

namespace schedopt::sim {

struct served_resource;

/// Answers `code` with `body` as application/json, as every API handler here does.
void send_json(httplib::Response& res, int code, const nlohmann::json& body);

/// The Status reason Kubernetes uses for an HTTP code (409 needs the error code to
/// tell AlreadyExists from Conflict).
std::string status_reason(int http_status, ec code = ec::none);

/// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",...}.
/// `details` is omitted when null.
nlohmann::json status_failure(int code, const std::string& reason, const std::string& message,
                              const nlohmann::json& details = nullptr);

/// A store / patch error for one object of `resource` (details name, group, kind=plural).
nlohmann::json status_for_error(const error& err, const served_resource* resource,
                                const std::string& name);

/// The HTTP code of an error (500 when the error carries none).
int status_code_of(const error& err);

} // namespace schedopt::sim
