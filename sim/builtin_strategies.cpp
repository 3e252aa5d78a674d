#include "sim/builtin_strategies.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/field_errors.hpp"
#include "sim/json_fields.hpp"
#include "sim/pvc_protection.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

/// The annotations' keys and values together stay within 256 KiB (apimachinery
/// pkg/api/validation/objectmeta.go ValidateAnnotationsSize, TotalAnnotationSizeLimitB).
std::optional<field_error> annotations_too_long(const json& object) {
  constexpr std::size_t limit = 256 * 1024;
  auto annotations = object.value("/metadata/annotations"_json_pointer, json());
  if (!annotations.is_object())
    return std::nullopt;
  std::size_t total = 0;
  for (auto it = annotations.begin(); it != annotations.end(); ++it)
    total += it.key().size() + (it.value().is_string() ? it.value().get_ref<const std::string&>().size() : 0);
  if (total <= limit)
    return std::nullopt;
  return make_field_error(field_error_type::too_long, "metadata.annotations", "",
                          "may not be more than " + std::to_string(limit) + " bytes");
}

/// A namespace is labelled with its own name, on create and on update (kubernetes v1.37.2
/// pkg/registry/core/namespace/strategy.go, namespaceStrategy.Canonicalize, and the
/// decoder's SetDefaults_Namespace).
void label_namespace(json& object) {
  auto name = text_at(object, "/metadata/name"_json_pointer);
  if (!name.empty())
    object["metadata"]["labels"]["kubernetes.io/metadata.name"] = name;
}

/// A core/v1 Event's namespace agrees with its involved object's (kubernetes v1.37.2
/// pkg/apis/core/validation/events.go legacyValidateEvent): an object in no namespace
/// has its events in "" or default (default or kube-system for an Event with eventTime).
std::optional<field_error> event_in_wrong_namespace(const json& event) {
  auto ns = text_at(event, "/metadata/namespace"_json_pointer);
  auto involved = text_at(event, "/involvedObject/namespace"_json_pointer);
  bool has_event_time = !text_at(event, "/eventTime"_json_pointer).empty();
  bool agrees = involved.empty() ? (has_event_time ? ns == "default" || ns == "kube-system" : ns.empty() || ns == "default")
                                 : has_event_time || ns == involved;
  if (agrees)
    return std::nullopt;
  return make_field_error(field_error_type::invalid, "involvedObject.namespace", json(involved).dump(),
                          "does not match event.namespace");
}

/// A core/v1 Event carries the fields its Go type never omits (eventTime, a MicroTime
/// without omitempty, and the reporting strings), as kube-apiserver serializes it.
void fill_event_fields(json& event) {
  if (!event.contains("eventTime"))
    event["eventTime"] = nullptr;
  for (const char* key : {"reportingComponent", "reportingInstance"})
    if (!event.contains(key))
      event[key] = "";
}

/// `finalizer` appended to a finalizers list (made one if it is not) unless it is there.
void add_finalizer(json& finalizers, const char* finalizer) {
  if (!finalizers.is_array())
    finalizers = json::array();
  if (std::find(finalizers.begin(), finalizers.end(), json(finalizer)) == finalizers.end())
    finalizers.push_back(finalizer);
}

} // namespace

void apply_decode_defaults(const resource_type& type, json& object) {
  // pkg/apis/core/v1/defaults.go SetDefaults_Namespace.
  if (type.key() == "namespaces")
    label_namespace(object);
  if (type.key() == "persistentvolumeclaims") {
    // defaults.go SetDefaults_PersistentVolumeClaimSpec and SetDefaults_PersistentVolumeClaim.
    auto& spec = object["spec"];
    if (spec.is_object() && !spec.contains("volumeMode"))
      spec["volumeMode"] = "Filesystem";
    if (text_at(object, "/status/phase"_json_pointer).empty())
      object["status"]["phase"] = "Pending";
  }
}

void prepare_for_create(const resource_type& type, json& object) {
  auto key = type.key();
  if (key == "namespaces") {
    // pkg/registry/core/namespace/strategy.go namespaceStrategy.PrepareForCreate.
    object["status"] = {{"phase", "Active"}};
    add_finalizer(object["spec"]["finalizers"], "kubernetes");
  } else if (key == "persistentvolumeclaims") {
    // plugin/pkg/admission/storage/storageobjectinuseprotection admitPVC; the PVC
    // protection controller (sim/pvc_protection.hpp) takes it off.
    add_finalizer(object["metadata"]["finalizers"], pvc_protection_finalizer);
  } else if (key == "poddisruptionbudgets.policy") {
    // pkg/registry/policy/poddisruptionbudget/strategy.go PrepareForCreate: an empty
    // PodDisruptionBudgetStatus, whose four counts are never omitted.
    object["status"] = {{"currentHealthy", 0}, {"desiredHealthy", 0}, {"disruptionsAllowed", 0}, {"expectedPods", 0}};
  }
}

std::optional<error> prepare_and_validate(const resource_type& type, json& object) {
  auto key = type.key();
  if (key == "namespaces")
    label_namespace(object);
  if (key == "events")
    fill_event_fields(object);
  std::vector<field_error> errs;
  if (auto e = annotations_too_long(object))
    errs.push_back(*e);
  if (key == "events")
    if (auto e = event_in_wrong_namespace(object))
      errs.push_back(*e);
  if (errs.empty())
    return std::nullopt;
  return invalid_object_error(type, text_at(object, "/metadata/name"_json_pointer), errs);
}

} // namespace schedopt::sim
