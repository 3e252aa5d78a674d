// Request structs -> HTTP method, path, query, body and content type (no I/O), plus the
// few list fields the client needs without decoding items.
#pragma once

#include <string>
#include <string_view>

#include "k8s/api_types.hpp"
#include "model/error.hpp"

namespace schedopt::k8s {

struct http_call {
  std::string verb;   // for metrics: get, list, watch, create, patch, update, delete
  std::string method; // GET, POST, PATCH, PUT, DELETE
  std::string target; // path + query
  std::string body;
  std::string content_type; // empty when no body
};

http_call to_http(const get_request& r);
http_call to_http(const list_request& r);
http_call to_http(const create_request& r);
http_call to_http(const patch_request& r);
http_call to_http(const update_request& r);
http_call to_http(const delete_request& r);
http_call to_http(const watch_request& r);
/// POST <pod>/eviction, verb "create" (the subresource's, as RBAC names it).
http_call to_http(const eviction_request& r);

struct list_metadata {
  std::string resource_version;
  std::string continue_token;
};

/// metadata.resourceVersion and metadata.continue of a list body.
expected<list_metadata> read_list_metadata(std::string_view body);

} // namespace schedopt::k8s
