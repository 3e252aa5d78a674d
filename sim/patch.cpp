// PATCH application with nlohmann's merge_patch / patch and a yaml-cpp based converter.
#include "sim/patch.hpp"

#include <cctype>
#include <cstdlib>

#include <yaml-cpp/yaml.h>

#include "sim/field_errors.hpp"

namespace schedopt::sim {

namespace {

std::string media_type(std::string_view content_type) {
  auto semi = content_type.find(';');
  std::string out{content_type.substr(0, semi)};
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())))
    out.pop_back();
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

nlohmann::json plain_scalar(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE")
    return true;
  if (s == "false" || s == "False" || s == "FALSE")
    return false;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL")
    return nullptr;
  const char* begin = s.c_str();
  char* end = nullptr;
  bool looks_numeric = std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+'
                       || s[0] == '.';
  if (looks_numeric) {
    errno = 0;
    long long i = std::strtoll(begin, &end, 10);
    if (errno == 0 && end != begin && *end == '\0')
      return i;
    double d = std::strtod(begin, &end);
    if (end != begin && *end == '\0')
      return d;
  }
  return s;
}

nlohmann::json convert(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str")
        return node.Scalar();
      return plain_scalar(node.Scalar());
    case YAML::NodeType::Sequence: {
      auto arr = nlohmann::json::array();
      for (const auto& item : node)
        arr.push_back(convert(item));
      return arr;
    }
    case YAML::NodeType::Map: {
      auto obj = nlohmann::json::object();
      for (const auto& kv : node)
        obj[kv.first.as<std::string>()] = convert(kv.second);
      return obj;
    }
  }
  return nullptr;
}

} // namespace

std::optional<patch_kind> patch_kind_from_content_type(std::string_view content_type) {
  auto type = media_type(content_type);
  if (type == "application/merge-patch+json")
    return patch_kind::merge;
  if (type == "application/json-patch+json")
    return patch_kind::json_patch;
  if (type == "application/strategic-merge-patch+json")
    return patch_kind::strategic_merge;
  if (type == "application/apply-patch+yaml" || type == "application/apply-patch+json")
    return patch_kind::apply;
  return std::nullopt;
}

expected<nlohmann::json> yaml_to_json(const std::string& text) {
  try {
    return convert(YAML::Load(text));
  } catch (const std::exception& e) {
    return make_error(ec::parse_error, std::string{"error converting YAML to JSON: "} + e.what(), 400);
  }
}

expected<std::vector<nlohmann::json>> yaml_documents_to_json(const std::string& text) {
  try {
    std::vector<nlohmann::json> out;
    for (const auto& doc : YAML::LoadAll(text)) {
      auto value = convert(doc);
      if (!value.is_null())
        out.push_back(std::move(value));
    }
    return out;
  } catch (const std::exception& e) {
    return make_error(ec::parse_error, std::string{"error parsing YAML: "} + e.what(), 400);
  }
}

expected<nlohmann::json> apply_patch(const nlohmann::json& current, patch_kind kind,
                                     const std::string& body) {
  nlohmann::json patch;
  if (kind == patch_kind::apply) {
    auto parsed = yaml_to_json(body);
    if (!parsed)
      return parsed.err();
    patch = std::move(*parsed);
  } else {
    patch = nlohmann::json::parse(body, nullptr, false);
    if (patch.is_discarded())
      return make_error(ec::parse_error, "couldn't get patch: invalid JSON in patch body", 400);
  }
  switch (kind) {
    case patch_kind::merge:
    case patch_kind::strategic_merge:
    case patch_kind::apply: {
      if (!patch.is_object())
        return make_error(ec::invalid_request, "patch body must be a JSON object", 400);
      auto result = current;
      result.merge_patch(patch);
      return result;
    }
    case patch_kind::json_patch: {
      if (!patch.is_array())
        return make_error(ec::invalid_request,
                          "json: cannot unmarshal object into Go value of type jsonpatch.Patch", 400);
      try {
        return current.patch(patch);
      } catch (const nlohmann::json::exception&) {
        // A failed `test`, a missing path or a bad index all answer the same body: the
        // json-patch library's own words are dropped. Follows kubernetes v1.36.3
        // staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go,
        // jsonPatcher.applyJSPatch (NewGenericServerResponse(422, ..., isUnexpectedResponse
        // false): apimachinery's generic 422 message, empty details).
        auto err = make_error(ec::invalid_value,
                              "the server rejected our request due to an error in our request", 422);
        attach_status_details(err, nlohmann::json::object());
        return err;
      }
    }
  }
  return make_error(ec::invalid_request, "unsupported patch type", 415);
}

} // namespace schedopt::sim
