// Resource endpoint semantics as apiserver implements them for JSON clients.
#include "sim/api_server_handlers.hpp"

#include <algorithm>
#include <set>
#include <thread>

#include <httplib.h>

#include "sim/api_server_status.hpp"
#include "sim/api_server_table.hpp"
#include "sim/builtin_strategies.hpp"
#include "sim/go_json_errors.hpp"
#include "sim/json_fields.hpp"
#include "sim/managed_fields.hpp"
#include "sim/namespace_deletion.hpp"
#include "sim/patch.hpp"
#include "sim/pod_deletion.hpp"
#include "sim/pod_facts.hpp"
#include "sim/pod_templates.hpp"
#include "sim/protobuf/k8s_protobuf.hpp"
#include "sim/protobuf_wire.hpp"
#include "sim/selectors.hpp"
#include "sim/structural_schema.hpp"
#include "sim/type_meta_text.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;
using watch_clock = std::chrono::steady_clock;

constexpr auto default_watch_timeout = std::chrono::seconds(1800);
constexpr auto keepalive_interval = std::chrono::seconds(5);

void send_error(httplib::Response& res, const error& err, const served_resource* r,
                const std::string& name) {
  send_json(res, status_code_of(err), status_for_error(err, r, name));
}

void not_found(httplib::Response& res) {
  send_json(res, 404,
            status_failure(404, "NotFound", "the server could not find the requested resource"));
}

void method_not_allowed(httplib::Response& res, const std::string& method) {
  send_json(res, 405, status_failure(405, "MethodNotAllowed",
                                     "the server does not allow this method on the requested resource"));
}

bool truthy(const std::string& v) {
  return v == "1" || v == "true" || v == "t" || v == "True" || v == "TRUE";
}

std::string param(const httplib::Request& req, const char* name) {
  return req.has_param(name) ? req.get_param_value(name) : std::string{};
}

/// The 410 a continue token older than the compacted revision gets, with a token that
/// reads the rest of the list at the latest revision. Follows kubernetes v1.36.3
/// staging/src/k8s.io/apiserver/pkg/storage/etcd3/errors.go, interpretListError and
/// handleCompactedErrorForPaging (errors.NewResourceExpired with ListMeta.Continue).
json continue_expired(const continue_token& expired) {
  continue_token latest = expired;
  latest.resource_version = -1;
  latest.snapshot_id = 0;
  auto body = status_failure(
    410, "Expired",
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list.");
  body["metadata"]["continue"] = encode_continue(latest);
  return body;
}

struct selectors {
  label_selector labels;
  field_selector fields;
  bool matches(const json& obj) const {
    return labels.matches_object(obj) && fields.matches(obj);
  }
  /// Parses a text-only object only when there is something to match.
  bool matches(const stored_object& obj) const {
    return empty() || matches(*obj.parsed());
  }
  bool empty() const { return labels.empty() && fields.empty(); }
};

expected<selectors> parse_selectors(const httplib::Request& req) {
  auto labels = label_selector::parse(param(req, "labelSelector"));
  if (!labels)
    return labels.err();
  auto fields = field_selector::parse(param(req, "fieldSelector"));
  if (!fields)
    return fields.err();
  return selectors{std::move(*labels), std::move(*fields)};
}

/// The 400 for a body Go's JSON decoder refuses, as apiserver's handlers/rest.go
/// transformDecodeError words it for an object of `kind`.
error undecodable_body(const std::string& kind, const std::string& why, const std::string& body) {
  return make_error(ec::parse_error,
                    "the object provided is unrecognized (must be of type " + kind
                      + "): couldn't get version/kind; json parse error: " + why + " (" + summarize_data(body, 30) + ")",
                    400);
}

/// `custom`: a custom resource's endpoint. apiextensions-apiserver lists protobuf among
/// the media types it accepts (it writes metadata-only answers in it) but decodes no
/// custom resource from it.
expected<json> parse_body(const httplib::Request& req, const std::string& kind, bool custom = false) {
  auto content_type = req.get_header_value("Content-Type");
  if (content_type.find("yaml") != std::string::npos)
    return yaml_to_json(req.body);
  // kubectl and typed client-go clients send protobuf for the built-in kinds.
  if (is_protobuf(content_type) && !custom)
    return protobuf_body(req.body, kind);
  if (!content_type.empty() && (is_protobuf(content_type) || content_type.find("json") == std::string::npos))
    return make_error(ec::invalid_request,
                      "the body of the request was in an unknown format - accepted media types "
                      "include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
                      415);
  if (auto syntax = go_json_syntax_error(req.body))
    return undecodable_body(kind, *syntax, req.body);
  auto body = json::parse(req.body, nullptr, false);
  if (body.is_discarded() || (!body.is_object() && !body.is_null())) {
    // apimachinery json/meta.go SimpleMetaFactory.Interpret decodes into this struct.
    const char* what = body.is_array() ? "array" : body.is_string() ? "string" : body.is_boolean() ? "bool" : "number";
    return undecodable_body(kind,
                            std::string("json: cannot unmarshal ") + what
                              + " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
                                "Kind string \"json:\\\"kind,omitempty\\\"\" }",
                            req.body);
  }
  if (body.is_null())
    body = json::object();
  return body;
}

/// `stored` as the resource shows it (another version's objects are converted).
json shown(const served_resource& r, json stored) {
  return r.to_served != nullptr ? r.to_served(stored) : stored;
}

std::string api_version_of(const served_resource& r, const std::string& version) {
  return r.type.group.empty() ? version : r.type.group + "/" + version;
}

bool key_after(const json& obj, const std::string& ns, const std::string& name) {
  auto ons = metadata_text(obj, "namespace");
  return ons != ns ? ons > ns : metadata_text(obj, "name") > name;
}

/// Kubernetes' 415 for a patch type the resource does not take. A built-in type's PATCH
/// route consumes only the patch types (apiserver endpoints/installer.go), so go-restful
/// refuses any other with its bare status line; a custom resource's handler
/// (apiextensions-apiserver customresource_handler.go) reaches handlers/patch.go, which
/// lists what it takes (negotiation.NewUnsupportedMediaTypeError).
json unsupported_patch(const served_resource& r) {
  if (!r.custom)
    return status_failure(415, "UnsupportedMediaType", "415: Unsupported Media Type", json::object());
  return status_failure(415, "UnsupportedMediaType",
                        "the body of the request was in an unknown format - accepted media types include: "
                        "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go,
// fieldValidation (Warn when the parameter is absent), and staging/src/k8s.io/apimachinery/
// pkg/apis/meta/v1/validation/validation.go, ValidateFieldValidation (a 422 on the
// request's options for any other value).
std::string field_validation(const httplib::Request& req) {
  auto directive = param(req, "fieldValidation");
  return directive.empty() ? "Warn" : directive;
}

bool reject_field_validation(const httplib::Request& req, httplib::Response& res,
                             const std::string& options_kind) {
  auto directive = param(req, "fieldValidation");
  if (directive.empty() || directive == "Ignore" || directive == "Warn" || directive == "Strict")
    return false;
  field_error e{"FieldValueNotSupported", "fieldValidation",
                "Unsupported value: " + go_quote(directive)
                  + ": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""};
  send_json(res, 422, invalid_status(options_kind + ".meta.k8s.io", "meta.k8s.io", options_kind, "", {e}));
  return true;
}

/// Who a write is recorded under in managedFields.
field_writer writer_of(const httplib::Request& req, const resource_target& t, const std::string& version) {
  return {manager_of(param(req, "fieldManager"), req.get_header_value("User-Agent")),
          api_version_of(*t.resource, version), t.subresource == "status" ? "status" : "",
          t.resource->type.status_subresource};
}

/// PatchOptions as apimachinery's validation.ValidatePatchOptions checks them (a
/// fieldManager for apply, no force otherwise, at most 128 bytes), answered as
/// apiserver's handlers/patch.go does: 422 on PatchOptions.meta.k8s.io.
bool reject_patch_options(const httplib::Request& req, httplib::Response& res, patch_kind kind) {
  std::vector<field_error> errs;
  auto manager = param(req, "fieldManager");
  if (kind == patch_kind::apply && manager.empty())
    errs.push_back({"FieldValueRequired", "fieldManager", "Required value: is required for apply patch"});
  if (kind != patch_kind::apply && req.has_param("force"))
    errs.push_back({"FieldValueForbidden", "force", "Forbidden: may not be specified for non-apply patch"});
  if (manager.size() > 128)
    errs.push_back({"FieldValueTooLong", "fieldManager", "Too long: may not be more than 128 bytes"});
  if (errs.empty())
    return false;
  send_json(res, 422, invalid_status("PatchOptions.meta.k8s.io", "meta.k8s.io", "PatchOptions", "", errs));
  return true;
}

/// Prunes a body as the decoder does, a custom resource's by its schema and a built-in
/// kind's by its Go type; the dropped paths.
std::vector<std::string> prune_body(const served_resource& r, json& obj) {
  if (!r.custom) {
    // The object's own type: a patch is pruned after its conversion to the stored kind.
    auto api_version = text_at(obj, "/apiVersion"_json_pointer);
    auto kind = text_at(obj, "/kind"_json_pointer);
    return protobuf::drop_unknown_fields(obj, api_version.empty() ? r.type.api_version() : api_version,
                                         kind.empty() ? r.type.kind : kind);
  }
  if (!r.schema)
    return {};
  return prune_unknown_fields(obj, r.schema->root);
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go,
// addStrictDecodingWarnings: one Warning header per unknown field.
void warn_unknown_fields(httplib::Response& res, const std::vector<std::string>& unknown) {
  for (auto& f : unknown)
    res.set_header("Warning", warning_header("unknown field \"" + f + "\""));
}

// Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
// and update.go: under Strict an unknown field fails decoding, and transformDecodeError
// answers 400 "<Kind> in version \"<v>\" cannot be handled as a <Kind>: ...".
bool reject_unknown_fields(const httplib::Request& req, httplib::Response& res,
                           const served_resource& r, const std::string& version,
                           const std::vector<std::string>& unknown) {
  if (unknown.empty())
    return false;
  if (field_validation(req) != "Strict") {
    if (field_validation(req) == "Warn")
      warn_unknown_fields(res, unknown);
    return false;
  }
  send_json(res, 400, status_failure(400, "BadRequest",
                                     r.type.kind + " in version " + go_quote(version)
                                       + " cannot be handled as a " + r.type.kind + ": "
                                       + strict_decoding_message(unknown)));
  return true;
}

} // namespace

resource_handlers::resource_handlers(object_store& store, const resource_registry& registry,
                                     handler_options options)
  : store_(store), registry_(registry), options_(options) {}

void resource_handlers::serve(const httplib::Request& req, httplib::Response& res,
                              const std::string& group, const std::string& version,
                              std::vector<std::string> rest,
                              std::optional<eviction_outcome>* eviction) {
  resource_target t;
  if (!rest.empty() && rest[0] == "watch") {
    t.watch_path = true;
    rest.erase(rest.begin());
  }
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    auto* r = registry_.find(group, version, rest[2]);
    if (r != nullptr && r->type.namespaced) {
      t.resource = r;
      t.ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  if (rest.empty())
    return not_found(res);
  if (t.resource == nullptr)
    t.resource = registry_.find(group, version, rest[0]);
  if (t.resource == nullptr || rest.size() > 3)
    return not_found(res);
  if (rest.size() >= 2)
    t.name = rest[1];
  if (rest.size() == 3)
    t.subresource = rest[2];
  bool eviction_path = t.subresource == "eviction" && t.resource->type.key() == pods_key;
  if (!t.subresource.empty() && !(t.subresource == "status" && t.resource->type.status_subresource)
      && !eviction_path)
    return not_found(res);
  if (t.resource->type.namespaced && t.ns.empty() && !t.name.empty())
    return not_found(res);

  const auto& m = req.method;
  if (m == "GET") {
    if (!t.name.empty() && !t.watch_path)
      return get(req, res, t);
    if (t.watch_path || truthy(param(req, "watch")))
      return watch(req, res, t);
    return list(req, res, t);
  }
  if (eviction_path) {
    if (m != "POST")
      return method_not_allowed(res, m);
    return evict(req, res, t, eviction);
  }
  if (m == "POST") {
    if (!t.name.empty())
      return method_not_allowed(res, m);
    return create(req, res, t, version);
  }
  if (m == "PUT") {
    if (t.name.empty())
      return method_not_allowed(res, m);
    return update(req, res, t, version);
  }
  if (m == "PATCH") {
    if (t.name.empty())
      return method_not_allowed(res, m);
    return patch(req, res, t, version);
  }
  if (m == "DELETE") {
    if (!t.subresource.empty())
      return method_not_allowed(res, m);
    if (t.name.empty())
      return remove_collection(req, res, t);
    return remove(req, res, t);
  }
  method_not_allowed(res, m);
}

void resource_handlers::get(const httplib::Request& req, httplib::Response& res,
                            const resource_target& t) {
  auto obj = store_.get(t.resource->type.key(), t.ns, t.name);
  if (!obj)
    return send_error(res, obj.err(), t.resource, t.name);
  *obj = shown(*t.resource, std::move(*obj));
  if (wants_table(req.get_header_value("Accept"))) {
    auto table = empty_table(*t.resource);
    table["metadata"]["resourceVersion"] = metadata_text(*obj, "resourceVersion");
    table["rows"].push_back(table_row(*t.resource, *obj));
    return send_json(res, 200, table);
  }
  send_json(res, 200, *obj);
}

void resource_handlers::list(const httplib::Request& req, httplib::Response& res,
                             const resource_target& t) {
  auto sel = parse_selectors(req);
  if (!sel)
    return send_error(res, sel.err(), nullptr, {});
  long limit = 0;
  if (auto text = param(req, "limit"); !text.empty()) {
    try {
      limit = std::stol(text);
    } catch (...) {
      return send_json(res, 400, status_failure(400, "BadRequest", "invalid limit \"" + text + "\""));
    }
  }
  const auto& type = t.resource->type;
  auto scope = type.key() + "/" + t.ns;
  shared_snapshot kept;
  uint64_t kept_id = 0; // 0: not kept yet (a first page, or the kept one expired)
  std::size_t start = 0;
  auto cont_text = param(req, "continue");
  if (!cont_text.empty()) {
    auto token = decode_continue(cont_text);
    if (!token)
      return send_error(res, token.err(), nullptr, {});
    if (token->resource_version >= 0
        && static_cast<uint64_t>(token->resource_version) < pager_.compacted_revision())
      return send_json(res, 410, continue_expired(*token));
    if (token->resource_version >= 0)
      kept = pager_.find(token->snapshot_id, scope);
    if (kept) {
      kept_id = token->snapshot_id;
    } else if (token->resource_version < 0) {
      // The token of a 410: the rest of the list at the latest revision, whose own pages
      // then continue from this new snapshot.
      kept = std::make_shared<const object_store::snapshot>(store_.list_stored(type.key(), t.ns));
    } else {
      auto current = store_.list_stored(type.key(), t.ns);
      current.resource_version = static_cast<uint64_t>(token->resource_version);
      kept = std::make_shared<const object_store::snapshot>(std::move(current));
    }
    start = static_cast<std::size_t>(
      std::partition_point(kept->items.begin(), kept->items.end(),
                           [&](const stored_ptr& p) {
                             return !key_after(*p->parsed(), token->start_ns, token->start_name);
                           })
      - kept->items.begin());
  } else {
    kept = std::make_shared<const object_store::snapshot>(store_.list_stored(type.key(), t.ns));
  }
  const auto& snap = *kept;

  std::vector<const stored_object*> page;
  std::vector<stored_ptr> page_owners;
  std::size_t i = start;
  for (; i < snap.items.size(); ++i) {
    if (limit > 0 && static_cast<long>(page.size()) >= limit)
      break;
    const auto& item = snap.items[i];
    if (sel->matches(*item)) {
      page.push_back(item.get());
      page_owners.push_back(item);
    }
  }
  std::string next_token;
  long long remaining = -1;
  if (i < snap.items.size() && !page.empty()) {
    continue_token token;
    token.resource_version = static_cast<int64_t>(snap.resource_version);
    auto last = page.back()->parsed();
    token.start_ns = metadata_text(*last, "namespace");
    token.start_name = metadata_text(*last, "name");
    token.snapshot_id = kept_id != 0 ? kept_id : pager_.keep(scope, kept);
    next_token = encode_continue(token);
    if (sel->empty())
      remaining = static_cast<long long>(snap.items.size() - i);
  }
  // The ListMeta every answer below carries.
  json list_meta = {{"resourceVersion", std::to_string(snap.resource_version)}};
  if (!next_token.empty())
    list_meta["continue"] = next_token;
  if (remaining >= 0)
    list_meta["remainingItemCount"] = remaining;

  if (wants_table(req.get_header_value("Accept"))) {
    auto table = empty_table(*t.resource);
    table["metadata"] = list_meta;
    for (auto* item : page)
      table["rows"].push_back(table_row(*t.resource, *item->parsed()));
    return send_json(res, 200, table);
  }
  if (t.resource->to_served != nullptr) {
    // Another version's objects: converted one by one (such types are small).
    json items = json::array();
    for (auto* item : page) {
      auto object = t.resource->to_served(*item->parsed());
      object.erase("apiVersion"); // a typed list's items
      object.erase("kind");
      items.push_back(std::move(object));
    }
    return send_json(
      res, 200, {{"kind", type.list_kind}, {"apiVersion", type.api_version()}, {"metadata", list_meta}, {"items", items}});
  }
  // Stream the cached texts straight from the snapshot: a large list is neither
  // re-serialized nor copied into one string (which cost more than the TLS).
  struct list_body {
    std::string head;
    std::vector<stored_ptr> items;
    // A built-in kind's items go without apiVersion and kind (Go's typed list encoding).
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> cuts;
    std::size_t next = 0;
  };
  auto body = std::make_shared<list_body>();
  body->head = R"({"kind":)" + json(type.list_kind).dump() + R"(,"apiVersion":)" + json(type.api_version()).dump()
               + R"(,"metadata":)" + list_meta.dump() + R"(,"items":[)";
  std::size_t total = body->head.size() + 2;
  body->items.reserve(page.size());
  bool typed = !t.resource->custom;
  if (typed)
    body->cuts.reserve(page.size());
  for (std::size_t k = 0; k < page.size(); ++k) {
    total += page[k]->text.size() + (k > 0 ? 1 : 0);
    if (typed) {
      body->cuts.push_back(type_meta_ranges(page[k]->text));
      for (const auto& [begin, end] : body->cuts.back())
        total -= end - begin;
    }
    body->items.push_back(page_owners[k]);
  }
  res.status = 200;
  if (typed && prefers_protobuf(req.get_header_value("Accept"))) {
    // A protobuf list is one message: written whole here, re-encoded by answer_in_protobuf.
    std::string whole = std::move(body->head);
    whole.reserve(total);
    for (std::size_t k = 0; k < body->items.size(); ++k) {
      if (k > 0)
        whole += ',';
      append_without(whole, body->items[k]->text, body->cuts[k]);
    }
    whole += "]}";
    res.set_content(std::move(whole), "application/json");
    return;
  }
  res.set_content_provider(
    total, "application/json", [body](size_t offset, size_t, httplib::DataSink& sink) -> bool {
      constexpr std::size_t batch = 256 * 1024;
      std::string buf;
      buf.reserve(batch + 64 * 1024);
      if (offset == 0)
        buf += body->head;
      while (body->next < body->items.size() && buf.size() < batch) {
        if (body->next > 0)
          buf += ',';
        if (body->cuts.empty())
          buf += body->items[body->next]->text;
        else
          append_without(buf, body->items[body->next]->text, body->cuts[body->next]);
        ++body->next;
      }
      if (body->next == body->items.size())
        buf += "]}";
      return sink.write(buf.data(), buf.size());
    });
}

namespace {

/// A BOOKMARK event at `rv`: an empty object of the resource's kind; the one that ends a
/// WatchList's initial events carries the annotation client-go waits for.
std::string bookmark_line(const served_resource& resource, uint64_t rv, bool initial_events_end) {
  json meta = {{"resourceVersion", std::to_string(rv)}};
  if (initial_events_end)
    meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
  json bookmark = {{"type", "BOOKMARK"},
                   {"object", {{"kind", resource.type.kind}, {"apiVersion", resource.type.api_version()}, {"metadata", meta}}}};
  return bookmark.dump() + "\n";
}

} // namespace

void resource_handlers::watch(const httplib::Request& req, httplib::Response& res,
                              const resource_target& t) {
  auto sel = parse_selectors(req);
  if (!sel)
    return send_error(res, sel.err(), nullptr, {});
  if (!t.name.empty()) {
    // /watch/.../<name>: a field selector on the name.
    auto named = field_selector::parse("metadata.name=" + t.name);
    auto both = label_selector::parse(param(req, "labelSelector"));
    sel = selectors{std::move(*both), std::move(*named)};
  }
  struct watch_state {
    selectors sel;
    std::string key;
    std::string ns;
    bool initial = false;
    bool initial_events_end = false; // a WatchList: one annotated BOOKMARK after the initial events
    bool started = false;
    bool partitioned = false; // a partition cut this stream
    std::vector<stored_ptr> pending_initial;
    std::size_t next_initial = 0;
    bool bookmarks = false;
    bool table = false;
    uint64_t synced = 0;
    uint64_t client_rv = 0; // the newest resourceVersion the client has been told of
    watch_clock::time_point deadline;
    watch_clock::time_point last_write;
    watch_clock::time_point next_bookmark; // max(): none due
  };
  auto st = std::make_shared<watch_state>();
  st->sel = std::move(*sel);
  st->key = t.resource->type.key();
  st->ns = t.ns;
  st->bookmarks = truthy(param(req, "allowWatchBookmarks"));
  st->table = wants_table(req.get_header_value("Accept"));
  auto rv_text = param(req, "resourceVersion");
  // sendInitialEvents (WatchList, client-go's default): the current state as ADDED events
  // whatever the resourceVersion, then, with bookmarks allowed, a BOOKMARK annotated
  // k8s.io/initial-events-end. Follows kubernetes v1.37.2 staging/src/k8s.io/apiserver/
  // pkg/storage/cacher/cacher.go (getWatchCacheResourceVersion,
  // setInitialEventsEndBookmarkIfRequested) and cache_watcher.go convertToWatchEvent.
  auto send_initial = param(req, "sendInitialEvents");
  if (send_initial == "true") {
    st->initial = true;
    st->initial_events_end = st->bookmarks;
  } else if (send_initial == "false" && rv_text.empty()) {
    st->synced = store_.resource_version(); // from now, no initial events
  } else if (rv_text.empty() || rv_text == "0") {
    st->initial = true;
  }
  if (!st->initial && !rv_text.empty() && rv_text != "0") {
    try {
      std::size_t used = 0;
      st->synced = std::stoull(rv_text, &used);
      if (used != rv_text.size())
        throw std::invalid_argument("trailing");
    } catch (...) {
      // A watch's resourceVersion is parsed by the storage (apiserver pkg/storage/
      // api_object_versioner.go ParseResourceVersion), whose error the handler answers
      // as an internal one: 500 with no reason.
      json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
                     {"message", "resourceVersion: Invalid value: " + go_quote(rv_text) + ": strconv.ParseUint: parsing "
                                   + go_quote(rv_text) + ": invalid syntax"},
                     {"code", 500}};
      return send_json(res, 500, status);
    }
  }
  st->client_rv = st->synced;
  auto now = watch_clock::now();
  auto timeout = std::chrono::duration_cast<watch_clock::duration>(default_watch_timeout);
  if (auto text = param(req, "timeoutSeconds"); !text.empty()) {
    try {
      timeout = std::chrono::seconds(std::max(0L, std::stol(text)));
    } catch (...) {
      return send_json(res, 400, status_failure(400, "BadRequest", "invalid timeoutSeconds"));
    }
  }
  if (options_.watch_drop_after.count() > 0)
    timeout = std::min<watch_clock::duration>(timeout, options_.watch_drop_after);
  st->deadline = now + timeout;
  st->last_write = now;
  // A bookmark roughly every interval whatever else the watch carries, and one 2 s before
  // the deadline so a client resumes from as close to now as possible. Follows kubernetes
  // v1.36.3 staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go,
  // cacheWatcher.nextBookmarkTime.
  auto bookmark_interval = std::chrono::duration_cast<watch_clock::duration>(options_.bookmark_interval);
  auto next_bookmark_after = [st, bookmark_interval](watch_clock::time_point from) {
    auto next = from + bookmark_interval;
    auto pre_timeout = st->deadline - std::chrono::seconds(2);
    if (pre_timeout < next)
      next = pre_timeout;
    return next < from ? watch_clock::time_point::max() : next;
  };
  st->next_bookmark = st->bookmarks ? next_bookmark_after(now) : watch_clock::time_point::max();
  const served_resource* resource = t.resource;

  auto encode = [st, resource](const char* type, const stored_object& obj) {
    std::string line = R"({"type":")";
    line += type;
    line += R"(","object":)";
    if (st->table) {
      auto table = empty_table(*resource);
      table["metadata"]["resourceVersion"] = std::to_string(obj.resource_version);
      table["rows"].push_back(table_row(*resource, *obj.parsed()));
      line += table.dump();
    } else if (resource->to_served != nullptr) {
      line += resource->to_served(*obj.parsed()).dump();
    } else {
      line += obj.text;
    }
    line += "}\n";
    return line;
  };

  res.status = 200;
  res.set_chunked_content_provider(
    // Not plain "application/json": that would make httplib gzip (and buffer) the stream.
    "application/json;stream=watch",
    [this, st, encode, resource, next_bookmark_after, agent = req.get_header_value("User-Agent")](
      size_t, httplib::DataSink& sink) -> bool {
      auto now = watch_clock::now();
      // A partition cuts the stream: nothing reaches the client while it lasts, and the
      // connection is gone when it ends (the client's watch is broken, not ended).
      if (options_.partitions != nullptr) {
        if (options_.partitions->cut_until(agent, std::chrono::steady_clock::now())) {
          st->partitioned = true;
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          return true;
        }
        if (st->partitioned)
          return false;
      }
      if ((options_.stopping != nullptr && options_.stopping->load()) || now >= st->deadline) {
        sink.done();
        return true;
      }
      std::string out;
      if (!st->started) {
        st->started = true;
        if (st->initial) {
          auto snap = store_.list_stored(st->key, st->ns);
          st->pending_initial = std::move(snap.items);
          st->synced = snap.resource_version;
        }
      }
      if (st->next_initial < st->pending_initial.size() || st->initial_events_end) {
        // The synthetic ADDED events of the current state, written in batches.
        while (st->next_initial < st->pending_initial.size() && out.size() < 256 * 1024) {
          const auto& item = st->pending_initial[st->next_initial++];
          if (st->sel.matches(*item))
            out += encode("ADDED", *item);
        }
        if (st->next_initial == st->pending_initial.size()) {
          st->pending_initial = {};
          if (st->initial_events_end) {
            out += bookmark_line(*resource, st->synced, true);
            st->client_rv = st->synced;
            st->initial_events_end = false;
          }
        }
        if (out.empty())
          return true;
        st->last_write = now;
        return sink.write(out.data(), out.size());
      }
      auto global = store_.resource_version();
      auto events = store_.raw_events_since(st->key, st->ns, st->synced);
      if (!events) {
        auto status = status_failure(410, "Expired", events.err().message);
        out = json{{"type", "ERROR"}, {"object", status}}.dump() + "\n";
        sink.write(out.data(), out.size());
        sink.done();
        return true;
      }
      for (auto& e : *events) {
        global = std::max(global, e.object->resource_version);
        bool now_matches = st->sel.matches(*e.object);
        const char* type = nullptr;
        if (e.type == "MODIFIED" && e.previous && !st->sel.empty()) {
          bool was_matching = st->sel.matches(*e.previous);
          if (was_matching && now_matches)
            type = "MODIFIED";
          else if (now_matches)
            type = "ADDED";
          else if (was_matching)
            type = "DELETED";
        } else if (now_matches || (e.type == "DELETED" && e.previous && st->sel.matches(*e.previous))) {
          type = e.type.c_str();
        }
        if (type != nullptr)
          out += encode(type, *e.object);
      }
      st->synced = std::max(st->synced, global);
      // cache_watcher.go process: a bookmark goes out only when its resourceVersion is
      // newer than the one the watcher stands at; one the client has adds nothing.
      if (now >= st->next_bookmark) {
        if (st->synced > st->client_rv) {
          out += bookmark_line(*resource, st->synced, false);
          st->client_rv = st->synced;
        }
        st->next_bookmark = next_bookmark_after(now);
      }
      if (!out.empty()) {
        st->last_write = now;
        return sink.write(out.data(), out.size());
      }
      if (now - st->last_write >= keepalive_interval) {
        // A bare newline is whitespace to JSON stream decoders; writing it is how a
        // watch on a quiet resource notices that its client went away.
        st->last_write = now;
        return sink.write("\n", 1);
      }
      auto wait = std::min<watch_clock::duration>(std::chrono::milliseconds(250), st->deadline - now);
      store_.wait_for_change(global, std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::max<watch_clock::duration>(wait, watch_clock::duration::zero())));
      return sink.is_writable();
    });
}

void resource_handlers::create(const httplib::Request& req, httplib::Response& res,
                               const resource_target& t, const std::string& version) {
  if (!t.subresource.empty())
    return method_not_allowed(res, req.method);
  auto body = parse_body(req, t.resource->type.kind, t.resource->custom);
  if (!body)
    return send_error(res, body.err(), nullptr, {});
  auto& obj = *body;
  const auto& type = t.resource->type;
  if (!obj.contains("metadata") || !obj["metadata"].is_object())
    obj["metadata"] = json::object();
  if (type.namespaced) {
    auto body_ns = metadata_text(obj, "namespace");
    if (!body_ns.empty() && !t.ns.empty() && body_ns != t.ns)
      return send_json(res, 400, status_failure(400, "BadRequest",
                                                "the namespace of the provided object does not "
                                                "match the namespace sent on the request"));
    auto ns = t.ns.empty() ? body_ns : t.ns;
    if (ns.empty())
      return not_found(res);
    obj["metadata"]["namespace"] = ns;
    if (!store_.get("namespaces", "", ns))
      return send_json(res, 404, status_failure(404, "NotFound", "namespaces \"" + ns + "\" not found",
                                                {{"name", ns}, {"kind", "namespaces"}}));
  }
  obj["apiVersion"] = api_version_of(*t.resource, version);
  obj["kind"] = type.kind;
  if (reject_field_validation(req, res, "CreateOptions")
      || reject_unknown_fields(req, res, *t.resource, version, prune_body(*t.resource, obj)))
    return;
  if (obj["metadata"].contains("resourceVersion") && !metadata_text(obj, "resourceVersion").empty())
    return send_json(res, 400, status_failure(400, "BadRequest",
                                              "resourceVersion should not be set on objects to be created"));
  if (t.resource->validate_create != nullptr)
    if (auto invalid = t.resource->validate_create(obj))
      return send_error(res, *invalid, t.resource, metadata_text(obj, "name"));
  // handlers/create.go: the field manager records the object as sent, before the
  // strategy's defaults.
  apply_decode_defaults(type, obj);
  record_update(obj, json::object(), writer_of(req, t, version));
  prepare_for_create(type, obj);
  if (type.key() == pods_key) {
    default_new_pod(obj); // SetDefaults_PodSpec, DefaultTolerationSeconds, PrepareForCreate
    mount_service_account_token(obj);
  }
  if (truthy(param(req, "dryRun")) || param(req, "dryRun") == "All")
    return send_json(res, 201, obj);
  auto name = metadata_text(obj, "name");
  if (t.resource->to_stored != nullptr)
    obj = t.resource->to_stored(obj);
  auto created = store_.create(type.key(), std::move(obj));
  if (!created)
    return send_error(res, created.err(), t.resource, name);
  send_json(res, 201, shown(*t.resource, std::move(*created)));
}

void resource_handlers::update(const httplib::Request& req, httplib::Response& res,
                               const resource_target& t, const std::string& version) {
  auto body = parse_body(req, t.resource->type.kind, t.resource->custom);
  if (!body)
    return send_error(res, body.err(), nullptr, {});
  auto& obj = *body;
  if (!obj.contains("metadata") || !obj["metadata"].is_object())
    obj["metadata"] = json::object();
  if (reject_field_validation(req, res, "UpdateOptions")
      || reject_unknown_fields(req, res, *t.resource, t.resource->type.version,
                               prune_body(*t.resource, obj)))
    return;
  auto body_name = metadata_text(obj, "name");
  if (!body_name.empty() && body_name != t.name)
    return send_json(res, 400, status_failure(400, "BadRequest",
                                              "the name of the object (" + body_name
                                                + ") does not match the name on the URL (" + t.name + ")"));
  obj["metadata"]["name"] = t.name;
  if (t.resource->type.namespaced) {
    auto body_ns = metadata_text(obj, "namespace");
    if (!body_ns.empty() && body_ns != t.ns)
      return send_json(res, 400, status_failure(400, "BadRequest",
                                                "the namespace of the provided object does not "
                                                "match the namespace sent on the request"));
    obj["metadata"]["namespace"] = t.ns;
  }
  if (t.resource->custom && metadata_text(obj, "resourceVersion").empty()) {
    const auto& type = t.resource->type;
    json details = {{"name", t.name},
                    {"group", type.group},
                    {"kind", type.kind},
                    {"causes",
                     {{{"reason", "FieldValueInvalid"},
                       {"message", "Invalid value: 0x0: must be specified for an update"},
                       {"field", "metadata.resourceVersion"}}}}};
    return send_json(res, 422,
                     status_failure(422, "Invalid",
                                    type.kind + "." + type.group + " \"" + t.name
                                      + "\" is invalid: metadata.resourceVersion: Invalid value: "
                                        "0x0: must be specified for an update",
                                    details));
  }
  auto writer = writer_of(req, t, version);
  if (t.resource->to_stored != nullptr)
    obj = t.resource->to_stored(obj);
  auto stored = store_.replace(t.resource->type.key(), std::move(obj), t.subresource == "status", &writer);
  if (!stored)
    return send_error(res, stored.err(), t.resource, t.name);
  send_json(res, 200, shown(*t.resource, std::move(*stored)));
}

void resource_handlers::patch(const httplib::Request& req, httplib::Response& res,
                              const resource_target& t, const std::string& version) {
  auto kind = patch_kind_from_content_type(req.get_header_value("Content-Type"));
  if (!kind || (*kind == patch_kind::strategic_merge && t.resource->custom))
    return send_json(res, 415, unsupported_patch(*t.resource));
  const auto& type = t.resource->type;
  bool status_only = t.subresource == "status";
  if (reject_patch_options(req, res, *kind) || reject_field_validation(req, res, "PatchOptions"))
    return;
  auto writer = writer_of(req, t, version);
  bool force = truthy(param(req, "force"));
  json config;
  if (*kind == patch_kind::apply) {
    auto parsed = yaml_to_json(req.body);
    if (!parsed)
      return send_error(res, parsed.err(), t.resource, t.name);
    config = std::move(*parsed);
    if (!config.is_object())
      return send_json(res, 400, status_failure(400, "BadRequest", "apply body must be an object"));
    // managedfields/internal/versioncheck.go versionCheckManager.Apply: the configuration
    // names the endpoint's group, version and kind (GroupVersionKind.String in the message).
    auto named_version = text_at(config, "/apiVersion"_json_pointer);
    auto named_kind = text_at(config, "/kind"_json_pointer);
    if (named_version != api_version_of(*t.resource, version) || named_kind != type.kind) {
      auto gvk = (named_version.find('/') == std::string::npos ? "/" + named_version : named_version)
                 + ", Kind=" + named_kind;
      return send_json(res, 400, status_failure(400, "BadRequest", "invalid object type: " + gvk));
    }
  }
  if (*kind == patch_kind::apply && !store_.get(type.key(), t.ns, t.name)) {
    // Server-side apply of an absent object creates it.
    auto obj = config;
    if (!obj.contains("metadata") || !obj["metadata"].is_object())
      obj["metadata"] = json::object();
    obj["metadata"]["name"] = t.name;
    if (type.namespaced)
      obj["metadata"]["namespace"] = t.ns;
    obj["apiVersion"] = api_version_of(*t.resource, version);
    obj["kind"] = type.kind;
    if (reject_unknown_fields(req, res, *t.resource, version, prune_body(*t.resource, obj)))
      return;
    auto applied = apply_configuration(json::object(), obj, writer, force);
    if (!applied)
      return send_error(res, applied.err(), t.resource, t.name);
    if (t.resource->to_stored != nullptr)
      *applied = t.resource->to_stored(*applied);
    auto created = store_.create(type.key(), std::move(*applied));
    if (!created)
      return send_error(res, created.err(), t.resource, t.name);
    return send_json(res, 201, shown(*t.resource, std::move(*created)));
  }
  std::optional<error> failure;
  std::optional<json> strict_failure;
  std::vector<std::string> unknown;
  auto stored = store_.modify(
    type.key(), t.ns, t.name,
    [&](json& current) {
      // A patch applies to the object as this version shows it.
      auto before = shown(*t.resource, current);
      auto patched = *kind == patch_kind::apply ? apply_configuration(before, config, writer, force)
                                                : apply_patch(before, *kind, req.body);
      if (patched && t.resource->to_stored != nullptr)
        *patched = t.resource->to_stored(*patched);
      if (!patched) {
        failure = patched.err();
        return false;
      }
      current = std::move(*patched);
      if (!current.is_object() || !current.contains("metadata") || !current["metadata"].is_object()) {
        failure = make_error(ec::invalid_value, "metadata: Required value", 422);
        return false;
      }
      // Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/
      // patch.go, jsonPatcher.applyPatchToCurrentObject: the patched object is decoded
      // (pruned); under Strict its unknown fields are a 422 on the field "patch" of an
      // unnamed object.
      json patched_text = current;
      unknown = prune_body(*t.resource, current);
      if (!unknown.empty() && field_validation(req) == "Strict") {
        field_error e{"FieldValueInvalid", "patch",
                      "Invalid value: " + go_quote(patched_text.dump()) + ": "
                        + strict_decoding_message(unknown)};
        strict_failure = invalid_status("", "", "", "", {e});
        return false;
      }
      return true;
    },
    status_only, *kind == patch_kind::apply ? nullptr : &writer);
  if (strict_failure)
    return send_json(res, 422, *strict_failure);
  if (failure)
    return send_error(res, *failure, t.resource, t.name);
  if (!stored)
    return send_error(res, stored.err(), t.resource, t.name);
  if (field_validation(req) == "Warn")
    warn_unknown_fields(res, unknown);
  send_json(res, 200, shown(*t.resource, std::move(*stored)));
}

void resource_handlers::remove(const httplib::Request& req, httplib::Response& res,
                               const resource_target& t) {
  const auto& key = t.resource->type.key();
  // DeleteOptions.preconditions (uid, then resourceVersion), checked before anything is
  // deleted. Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go,
  // BeforeDelete: NewConflict on GroupResource{group, Kind}, so the message and details name
  // the kind, not the plural.
  auto options = json::parse(req.body.empty() ? std::string("{}") : req.body, nullptr, false);
  if (options.is_object() && options.contains("preconditions") && options["preconditions"].is_object()) {
    auto current = store_.get(key, t.ns, t.name);
    if (!current)
      return send_error(res, current.err(), t.resource, t.name);
    auto& pre = options["preconditions"];
    auto want_rv = pre.value("resourceVersion", std::string{});
    auto want_uid = pre.value("uid", std::string{});
    std::string mismatch;
    if (!want_uid.empty() && want_uid != metadata_text(*current, "uid"))
      mismatch = "the UID in the precondition (" + want_uid + ") does not match the UID in record ("
                 + metadata_text(*current, "uid") + "). The object might have been deleted and then recreated";
    else if (!want_rv.empty() && want_rv != metadata_text(*current, "resourceVersion"))
      mismatch = "the ResourceVersion in the precondition (" + want_rv
                 + ") does not match the ResourceVersion in record ("
                 + metadata_text(*current, "resourceVersion") + "). The object might have been modified";
    if (!mismatch.empty()) {
      const auto& type = t.resource->type;
      auto qualified = type.group.empty() ? type.kind : type.kind + "." + type.group;
      json details = {{"name", t.name}, {"kind", type.kind}};
      if (!type.group.empty())
        details["group"] = type.group;
      return send_json(res, 409,
                       status_failure(409, "Conflict",
                                      "Operation cannot be fulfilled on " + qualified + " \""
                                        + t.name + "\": " + mismatch,
                                      details));
    }
  }
  // A pod goes gracefully (pkg/registry/core/pod/strategy.go CheckGracefulDelete).
  auto removed = key == pods_key         ? delete_pod(store_, t.ns, t.name, options)
                 : key == "namespaces" ? delete_namespace(store_, t.name)
                                       : store_.remove(key, t.ns, t.name);
  if (!removed)
    return send_error(res, removed.err(), t.resource, t.name);
  send_json(res, 200, delete_answer(t, *removed));
}

// Follows kubernetes v1.37.2 staging/src/k8s.io/apiserver/pkg/registry/generic/registry/
// store.go (Delete, finalizeDelete): an object still kept (finalizers, a grace period) comes
// back as stored; one gone comes back too where the type's store sets ReturnDeletedObject
// (pkg/registry/*/storage/storage.go), else a Success Status names it.
json resource_handlers::delete_answer(const resource_target& t, const json& removed) const {
  static const std::set<std::string> returns_deleted_object = {
    "pods", "namespaces", "persistentvolumes", "persistentvolumeclaims", "services", "serviceaccounts",
    "podtemplates", "resourcequotas", "storageclasses.storage.k8s.io", "csidrivers.storage.k8s.io",
    "csinodes.storage.k8s.io", "volumeattachments.storage.k8s.io"};
  const auto& type = t.resource->type;
  auto uid = metadata_text(removed, "uid");
  auto still = store_.get(type.key(), t.ns, t.name);
  if ((still && metadata_text(*still, "uid") == uid) || returns_deleted_object.count(type.key()))
    return removed;
  json details = {{"name", t.name}};
  if (!type.group.empty())
    details["group"] = type.group;
  details["kind"] = type.plural;
  details["uid"] = uid;
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"},
          {"details", details}};
}

// Follows kubernetes pkg/registry/core/pod/storage/eviction.go EvictionREST.Create through
// apiserver's handlers/create.go createHandler (a Status result is answered with its
// code, 201 when it has none; a refusal's Retry-After as responsewriters writes it).
void resource_handlers::evict(const httplib::Request& req, httplib::Response& res,
                              const resource_target& t, std::optional<eviction_outcome>* decision) {
  auto body = parse_body(req, "Eviction");
  if (!body)
    return send_error(res, body.err(), nullptr, {});
  auto body_ns = metadata_text(*body, "namespace");
  if (!body_ns.empty() && body_ns != t.ns)
    return send_json(res, 400, status_failure(400, "BadRequest",
                                              "the namespace of the provided object does not "
                                              "match the namespace sent on the request"));
  auto dry_run = param(req, "dryRun");
  auto outcome = evict_pod(store_, {t.ns, t.name, *body, dry_run == "All"});
  if (outcome.retry_after_seconds > 0)
    res.set_header("Retry-After", std::to_string(outcome.retry_after_seconds));
  send_json(res, outcome.code, outcome.body);
  if (decision != nullptr)
    *decision = std::move(outcome);
}

void resource_handlers::remove_collection(const httplib::Request& req, httplib::Response& res,
                                          const resource_target& t) {
  auto sel = parse_selectors(req);
  if (!sel)
    return send_error(res, sel.err(), nullptr, {});
  const auto& type = t.resource->type;
  auto snap = store_.list_stored(type.key(), t.ns);
  json items = json::array();
  for (auto& item : snap.items) {
    if (!sel->matches(*item))
      continue;
    auto object = item->parsed();
    auto ns = metadata_text(*object, "namespace");
    auto name = metadata_text(*object, "name");
    auto removed = type.key() == pods_key ? delete_pod(store_, ns, name, json::object())
                                          : store_.remove(type.key(), ns, name);
    if (removed)
      items.push_back(shown(*t.resource, std::move(*removed)));
  }
  send_json(res, 200,
            {{"kind", type.list_kind},
             {"apiVersion", type.api_version()},
             {"metadata", {{"resourceVersion", std::to_string(store_.resource_version())}}},
             {"items", items}});
}

} // namespace schedopt::sim
