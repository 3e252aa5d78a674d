// HTTP shapes of the API requests.
#include "k8s/requests.hpp"

#include <simdjson.h>
#include <nlohmann/json.hpp>

#include "k8s/paths.hpp"
#include "model/json_split.hpp"

namespace schedopt::k8s {

http_call to_http(const get_request& r) {
  return {"get", "GET", object_path(r.res, r.namespace_, r.name, r.subresource), {}, {}};
}

http_call to_http(const list_request& r) {
  auto target = collection_path(r.res, r.namespace_)
                + query_string({{"labelSelector", r.label_selector},
                                {"fieldSelector", r.field_selector},
                                {"limit", r.limit > 0 ? std::to_string(r.limit) : ""},
                                {"continue", r.continue_token}});
  return {"list", "GET", target, {}, {}};
}

http_call to_http(const create_request& r) {
  return {"create", "POST", collection_path(r.res, r.res.namespaced && r.namespace_.empty()
                                                     ? "default" : r.namespace_),
          r.body, "application/json"};
}

http_call to_http(const eviction_request& r) {
  return {"create", "POST", object_path(resources::pods, r.namespace_, r.name, "eviction"), r.body,
          "application/json"};
}

http_call to_http(const patch_request& r) {
  return {"patch", "PATCH", object_path(r.res, r.namespace_, r.name, r.status ? "status" : ""),
          r.body, r.json_patch ? "application/json-patch+json" : "application/merge-patch+json"};
}

http_call to_http(const update_request& r) {
  return {"update", "PUT", object_path(r.res, r.namespace_, r.name, r.status ? "status" : ""),
          r.body, "application/json"};
}

http_call to_http(const delete_request& r) {
  std::string body;
  if (!r.uid.empty() || !r.resource_version.empty() || !r.propagation_policy.empty()) {
    nlohmann::json opts{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
    if (!r.uid.empty())
      opts["preconditions"]["uid"] = r.uid;
    if (!r.resource_version.empty())
      opts["preconditions"]["resourceVersion"] = r.resource_version;
    if (!r.propagation_policy.empty())
      opts["propagationPolicy"] = r.propagation_policy;
    body = opts.dump();
  }
  return {"delete", "DELETE", object_path(r.res, r.namespace_, r.name), body,
          body.empty() ? "" : "application/json"};
}

http_call to_http(const watch_request& r) {
  auto target = collection_path(r.res, r.namespace_)
                + query_string({{"watch", "1"},
                                {"resourceVersion", r.resource_version},
                                {"labelSelector", r.label_selector},
                                {"fieldSelector", r.field_selector},
                                {"timeoutSeconds", r.timeout_seconds > 0
                                                     ? std::to_string(r.timeout_seconds) : ""},
                                {"allowWatchBookmarks", r.allow_bookmarks ? "true" : ""}});
  return {"watch", "GET", target, {}, {}};
}

expected<list_metadata> read_list_metadata(std::string_view body) {
  // Only the list's metadata is read here: parsing the page whole would index every
  // item (a page of 500 VMIs is megabytes, and simdjson indexes every byte), so the items
  // are cut out first; a page not shaped so is parsed whole.
  auto split = split_top_level_array(body, "items");
  simdjson::padded_string copy = split ? simdjson::padded_string{split->envelope}
                                       : simdjson::padded_string{body};
  simdjson::ondemand::parser parser;
  auto doc = parser.iterate(copy);
  simdjson::ondemand::object root;
  if (doc.get_object().get(root))
    return make_error(ec::parse_error, "list: not a JSON object");
  list_metadata out;
  simdjson::ondemand::object meta;
  if (root.find_field_unordered("metadata").get_object().get(meta))
    return out;
  for (auto field : meta) {
    std::string_view key;
    if (field.unescaped_key().get(key))
      return make_error(ec::parse_error, "list: malformed metadata");
    std::string_view value;
    if (key == "resourceVersion" && !field.value().get_string().get(value))
      out.resource_version = std::string{value};
    else if (key == "continue" && !field.value().get_string().get(value))
      out.continue_token = std::string{value};
  }
  return out;
}

} // namespace schedopt::k8s
