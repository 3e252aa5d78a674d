// CRD manifest parsing with yaml-cpp (via yaml_documents_to_json).
#include "sim/crd_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/field_errors.hpp"
#include "sim/object_store.hpp"
#include "sim/patch.hpp"
#include "sim/structural_schema.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

std::vector<std::string> strings(const json& value) {
  std::vector<std::string> out;
  if (value.is_array())
    for (auto& v : value)
      if (v.is_string())
        out.push_back(v.get<std::string>());
  return out;
}

} // namespace

expected<loaded_crd> crd_from_json(const json& crd) {
  auto name = crd.value("/metadata/name"_json_pointer, std::string{});
  auto fail = [&](const std::string& why) {
    return make_error(ec::invalid_value, "CustomResourceDefinition \"" + name + "\": " + why);
  };
  if (!crd.contains("spec") || !crd["spec"].is_object())
    return fail("spec is missing");
  const auto& spec = crd["spec"];
  const auto& names = spec.value("names", json::object());
  loaded_crd out;
  auto& type = out.resource.type;
  type.group = spec.value("group", "");
  type.kind = names.value("kind", "");
  type.plural = names.value("plural", "");
  type.singular = names.value("singular", "");
  if (type.singular.empty()) {
    type.singular = type.kind;
    std::transform(type.singular.begin(), type.singular.end(), type.singular.begin(), ::tolower);
  }
  type.list_kind = names.value("listKind", type.kind + "List");
  type.short_names = strings(names.value("shortNames", json::array()));
  type.categories = strings(names.value("categories", json::array()));
  type.namespaced = spec.value("scope", "Namespaced") != "Cluster";
  if (type.group.empty() || type.kind.empty() || type.plural.empty())
    return fail("spec.group, spec.names.kind and spec.names.plural are required");
  const json* chosen = nullptr;
  const json versions = spec.value("versions", json::array());
  for (auto& v : versions) {
    if (!v.value("served", true))
      continue;
    out.resource.versions.push_back(v.value("name", ""));
    if (chosen == nullptr || v.value("storage", false))
      chosen = &v;
  }
  if (chosen == nullptr)
    return fail("no served version");
  type.version = chosen->value("name", "");
  type.status_subresource = chosen->contains("/subresources/status"_json_pointer);
  out.resource.printer_columns = chosen->value("additionalPrinterColumns", json::array());
  out.resource.custom = true;
  // The storage version's schema is what every write is judged by: the simulator stores
  // and serves that version only.
  if (auto root = chosen->find("schema"); root != chosen->end() && root->contains("openAPIV3Schema")) {
    auto structural = structural_from_json((*root)["openAPIV3Schema"]);
    if (!structural)
      return fail("spec.versions[" + type.version + "].schema.openAPIV3Schema: " + structural.err().message);
    out.resource.schema = std::make_shared<const crd_schema>(
      crd_schema{type.group, type.version, type.kind, std::move(*structural)});
  }
  // The storage version first: it is what discovery prefers.
  auto& vs = out.resource.versions;
  std::stable_partition(vs.begin(), vs.end(), [&](const std::string& v) { return v == type.version; });
  out.manifest = crd;
  // What apiextensions-apiserver reports once a CRD is served; typed clients (e.g. the
  // Python client) require acceptedNames and storedVersions in a status.
  out.manifest["status"] = {
    {"acceptedNames", names},
    {"conditions",
     json::array({{{"type", "NamesAccepted"}, {"status", "True"}, {"reason", "NoConflicts"},
                   {"message", "no conflicts found"}, {"lastTransitionTime", "2026-01-01T00:00:00Z"}},
                  {{"type", "Established"}, {"status", "True"}, {"reason", "InitialNamesAccepted"},
                   {"message", "the initial names have been accepted"},
                   {"lastTransitionTime", "2026-01-01T00:00:00Z"}}})},
    {"storedVersions", json::array({type.version})}};
  return out;
}

expected<std::vector<loaded_crd>> load_crd_dir(const std::string& dir,
                                               const std::function<void(nlohmann::json&)>& shape) {
  namespace fs = std::filesystem;
  std::vector<loaded_crd> out;
  std::error_code err;
  if (!fs::is_directory(dir, err))
    return out;
  std::vector<fs::path> files;
  for (auto& entry : fs::directory_iterator(dir, err)) {
    auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json"))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto docs = yaml_documents_to_json(text.str());
    if (!docs)
      return make_error(ec::parse_error, file.string() + ": " + docs.err().message);
    for (auto& doc : *docs) {
      if (!doc.is_object() || doc.value("kind", "") != "CustomResourceDefinition")
        continue;
      if (shape)
        shape(doc);
      auto crd = crd_from_json(doc);
      if (!crd)
        return make_error(crd.err().code, file.string() + ": " + crd.err().message);
      out.push_back(std::move(*crd));
    }
  }
  return out;
}

// Follows apiextensions-apiserver pkg/apis/apiextensions/validation
// ValidateCustomResourceDefinitionVersion: in apiextensions.k8s.io/v1 schemas are required.
std::optional<error> validate_crd_schemas(nlohmann::json& crd, const nlohmann::json*, bool status_only) {
  if (status_only)
    return std::nullopt;
  std::vector<field_error> errs;
  auto versions = crd.value("/spec/versions"_json_pointer, nlohmann::json::array());
  for (std::size_t i = 0; versions.is_array() && i < versions.size(); ++i)
    if (!versions[i].is_object() || !versions[i].value("/schema/openAPIV3Schema"_json_pointer, nlohmann::json()).is_object())
      errs.push_back(make_field_error(field_error_type::required,
                                      "spec.versions[" + std::to_string(i) + "].schema.openAPIV3Schema", "", ""));
  if (errs.empty())
    return std::nullopt;
  resource_type crd_type;
  crd_type.group = "apiextensions.k8s.io";
  crd_type.kind = "CustomResourceDefinition";
  return invalid_object_error(crd_type, crd.value("/metadata/name"_json_pointer, std::string()), errs);
}

} // namespace schedopt::sim
