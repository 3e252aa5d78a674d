#include "sim/openapi_v3.hpp"

#include <openssl/evp.h>

#include "sim/json_fields.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

const char* crd_key = "customresourcedefinitions.apiextensions.k8s.io";
const std::string meta_prefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// builder.go: the group's DNS labels reversed, then the version and the kind.
std::string schema_name(const std::string& group, const std::string& version, const std::string& kind) {
  std::string reversed;
  std::size_t end = group.size();
  while (true) {
    auto dot = group.rfind('.', end == 0 ? 0 : end - 1);
    auto start = dot == std::string::npos ? 0 : dot + 1;
    if (!reversed.empty())
      reversed += ".";
    reversed += group.substr(start, end - start);
    if (dot == std::string::npos || start == 0)
      break;
    end = dot;
  }
  return reversed + "." + version + "." + kind;
}

/// One served version of a stored CRD.
struct served_version {
  std::string group, version, kind, list_kind, plural;
  bool namespaced = false;
  json schema; // its openAPIV3Schema, or null
};

template <class F>
void for_each_served_version(const object_store& store, F visit) {
  for (const auto& crd : store.list(crd_key).items) {
    served_version s;
    s.group = text_at(crd, "/spec/group"_json_pointer);
    s.kind = text_at(crd, "/spec/names/kind"_json_pointer);
    s.list_kind = text_at(crd, "/spec/names/listKind"_json_pointer);
    if (s.list_kind.empty())
      s.list_kind = s.kind + "List";
    s.plural = text_at(crd, "/spec/names/plural"_json_pointer);
    s.namespaced = text_at(crd, "/spec/scope"_json_pointer) == "Namespaced";
    for (const auto& v : crd.value("/spec/versions"_json_pointer, json::array()))
      if (v.value("served", false)) {
        s.version = v.value("name", std::string{});
        s.schema = v.value("/schema/openAPIV3Schema"_json_pointer, json());
        visit(s);
      }
  }
}

/// builder.go's routes, reduced to what clients read from them: the kind each path's
/// get and patch serve (kubectl explain finds the kind there), and the query
/// parameters a patch takes (kubectl asks whether fieldValidation is one).
void add_paths(json& paths, const served_version& s) {
  json kind = {{"group", s.group}, {"version", s.version}, {"kind", s.kind}};
  json list_kind = {{"group", s.group}, {"version", s.version}, {"kind", s.list_kind}};
  json patch_parameters = json::array();
  for (const char* name : {"dryRun", "fieldManager", "fieldValidation", "force"})
    patch_parameters.push_back({{"name", name}, {"in", "query"}, {"schema", {{"type", name == std::string("force") ? "boolean" : "string"}}}});
  auto root = "/apis/" + s.group + "/" + s.version + "/";
  auto collection = root + (s.namespaced ? "namespaces/{namespace}/" : "") + s.plural;
  paths[collection] = {{"get", {{"x-kubernetes-group-version-kind", list_kind}, {"x-kubernetes-action", "list"}}}};
  for (const auto& item : {collection + "/{name}", collection + "/{name}/status"})
    paths[item] = {{"get", {{"x-kubernetes-group-version-kind", kind}, {"x-kubernetes-action", "get"}}},
                   {"patch",
                    {{"x-kubernetes-group-version-kind", kind},
                     {"x-kubernetes-action", "patch"},
                     {"parameters", patch_parameters}}}};
}

std::string sha512_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha512(), nullptr);
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

json gvk(const std::string& group, const std::string& version, const std::string& kind) {
  return json::array({{{"group", group}, {"kind", kind}, {"version", version}}});
}

} // namespace

json openapi_v3_document(const object_store& store, const std::string& group, const std::string& version) {
  json schemas = json::object();
  json paths = json::object();
  for_each_served_version(store, [&](const served_version& s) {
    const auto& g = s.group;
    const auto& v = s.version;
    const auto& kind = s.kind;
    const auto& list_kind = s.list_kind;
    if (g != group || v != version)
      return;
    add_paths(paths, s);
    json object = s.schema.is_object() ? s.schema : json{{"type", "object"}};
    auto& properties = object["properties"];
    if (!properties.is_object())
      properties = json::object();
    for (const char* field : {"apiVersion", "kind"})
      if (!properties.contains(field))
        properties[field] = {{"type", "string"}};
    // builder.go: metadata is ObjectMeta, by reference.
    properties["metadata"] = {{"allOf", json::array({{{"$ref", "#/components/schemas/" + meta_prefix + "ObjectMeta"}}})},
                              {"description", "Standard object's metadata."}};
    object["x-kubernetes-group-version-kind"] = gvk(g, v, kind);
    auto name = schema_name(g, v, kind);
    schemas[name] = std::move(object);
    schemas[schema_name(g, v, list_kind)] = {
      {"type", "object"},
      {"required", json::array({"items"})},
      {"properties",
       {{"apiVersion", {{"type", "string"}}},
        {"kind", {{"type", "string"}}},
        {"items", {{"type", "array"}, {"items", {{"$ref", "#/components/schemas/" + name}}}}},
        {"metadata", {{"allOf", json::array({{{"$ref", "#/components/schemas/" + meta_prefix + "ListMeta"}}})}}}}},
      {"x-kubernetes-group-version-kind", gvk(g, v, list_kind)}};
  });
  if (schemas.empty())
    return nullptr;
  // The metadata types are referenced, not described: the simulator keeps no copy of
  // apimachinery's documentation.
  schemas[meta_prefix + "ObjectMeta"] = {{"type", "object"}, {"description", "The object's metadata."}};
  schemas[meta_prefix + "ListMeta"] = {{"type", "object"}, {"description", "The list's metadata."}};
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes CRD Swagger"}, {"version", "v0.1.0"}}},
          {"paths", paths},
          {"components", {{"schemas", schemas}}}};
}

json openapi_v3_index(const object_store& store) {
  json paths = json::object();
  for_each_served_version(store, [&](const served_version& s) {
    auto key = "apis/" + s.group + "/" + s.version;
    if (paths.contains(key))
      return;
    auto document = openapi_v3_document(store, s.group, s.version);
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + sha512_hex(document.dump())}};
  });
  return {{"paths", paths}};
}

} // namespace schedopt::sim
