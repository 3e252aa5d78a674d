// Kubernetes error answers -> schedopt::error: the code says what happened (conflict,
// not_found, gone, ...), the message is the server's Status message verbatim.
#pragma once

#include <string_view>

#include "model/error.hpp"

namespace schedopt::k8s {

/// The ec for an HTTP status, refined by the Status reason (409 AlreadyExists vs Conflict).
ec classify_status(int http_status, std::string_view reason);

/// Builds the error for a non-2xx answer from its body (a metav1.Status when the server
/// is Kubernetes; otherwise the body's first line or the status code).
error api_error(int http_status, std::string_view body);

/// A transport failure (no HTTP answer).
error transport_error(std::string_view what, std::string_view url);

} // namespace schedopt::k8s
