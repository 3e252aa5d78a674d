#pragma once
// Kubernetes' protobuf on the API server's wire: request bodies in it, and answers in it
// when the client prefers it, as kubectl and every typed client-go client do for the
// built-in kinds (apiserver pkg/endpoints/handlers/negotiation).
#include <string>

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

/// True when a Content-Type names Kubernetes' protobuf.
bool is_protobuf(const std::string& content_type);

/// True when an Accept header's first choice is Kubernetes' protobuf: negotiation takes
/// the first media type the server can write, in the client's order.
bool prefers_protobuf(const std::string& accept);

/// A protobuf request body as JSON, or the 400 kube-apiserver answers when it does not
/// decode (apiserver handlers/rest.go transformDecodeError).
expected<nlohmann::json> protobuf_body(const std::string& body, const std::string& kind);

/// Re-writes a JSON answer in protobuf when `req` prefers it and the answer's kind has a
/// message; a custom resource stays JSON when the client also accepts JSON, and is a 406
/// when it accepts only protobuf. Streamed answers (watches, large lists) are left alone.
void answer_in_protobuf(const httplib::Request& req, httplib::Response& res);

} // namespace schedopt::sim
