// Pod defaults and controller-made pods after the upstream functions each names.
#include "sim/pod_templates.hpp"

#include <random>

#include "sim/pod_facts.hpp"
#include "sim/scenario_random.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

/// kubernetes pkg/apis/core/helper/qos GetPodQOS, for the shapes a simulated pod has:
/// no requests anywhere is BestEffort; requests equal to limits for cpu and memory in
/// every container is Guaranteed; anything else Burstable.
std::string qos_class(const json& pod) {
  bool any = false, guaranteed = true;
  for (const auto& c : pod.value("/spec/containers"_json_pointer, json::array())) {
    auto requests = c.value("/resources/requests"_json_pointer, json::object());
    auto limits = c.value("/resources/limits"_json_pointer, json::object());
    if (!requests.empty() || !limits.empty())
      any = true;
    for (const char* r : {"cpu", "memory"})
      if (!limits.contains(r) || (requests.contains(r) && requests[r] != limits[r]))
        guaranteed = false;
  }
  if (!any)
    return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

void default_to(json& object, const char* key, const json& value) {
  if (!object.contains(key) || object[key].is_null())
    object[key] = value;
}

} // namespace

void default_new_pod(json& pod) {
  auto& spec = pod["spec"];
  if (!spec.is_object())
    spec = json::object();
  default_to(spec, "schedulerName", "default-scheduler");
  default_to(spec, "restartPolicy", "Always");
  default_to(spec, "dnsPolicy", "ClusterFirst");
  default_to(spec, "terminationGracePeriodSeconds", 30);
  default_to(spec, "securityContext", json::object());
  default_to(spec, "enableServiceLinks", true);
  default_to(spec, "preemptionPolicy", "PreemptLowerPriority");
  default_to(spec, "priority", 0);
  default_to(spec, "serviceAccountName", "default");
  // The v1 conversion mirrors the name into the deprecated serviceAccount field.
  default_to(spec, "serviceAccount", spec["serviceAccountName"]);
  if (spec["containers"].is_array())
    for (auto& c : spec["containers"]) {
      default_to(c, "terminationMessagePath", "/dev/termination-log");
      default_to(c, "terminationMessagePolicy", "File");
      default_to(c, "imagePullPolicy", "IfNotPresent");
      default_to(c, "resources", json::object()); // a struct Go never omits
    }
  // plugin/pkg/admission/defaulttolerationseconds: tolerate not-ready and unreachable
  // for 300s unless the pod says otherwise.
  auto& tolerations = spec["tolerations"];
  if (!tolerations.is_array())
    tolerations = json::array();
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    bool present = false;
    for (const auto& t : tolerations)
      if (t.value("key", "") == key && (t.value("effect", "") == "NoExecute" || t.value("effect", "").empty()))
        present = true;
    if (!present)
      tolerations.push_back(
        {{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
  }
  // pkg/registry/core/pod/strategy.go podStrategy.PrepareForCreate: the status a client
  // sends is dropped; a new pod is Pending.
  pod["status"] = {{"phase", "Pending"}, {"qosClass", qos_class(pod)}};
}

void mount_service_account_token(json& pod) {
  static const char* mount_path = "/var/run/secrets/kubernetes.io/serviceaccount";
  auto& spec = pod["spec"];
  if (!spec.is_object() || spec.value("automountServiceAccountToken", true) == false)
    return;
  for (const char* list : {"initContainers", "containers"})
    if (spec.contains(list) && spec[list].is_array())
      for (const auto& c : spec[list])
        for (const auto& m : c.value("volumeMounts", json::array()))
          if (m.value("mountPath", "") == mount_path)
            return;
  // apimachinery pkg/util/rand String(5), as the plugin names the volume.
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::string name = "kube-api-access-" + scenario_random::name_suffix(random, 5);
  json sources = json::array();
  sources.push_back({{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}});
  sources.push_back({{"configMap", {{"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}, {"name", "kube-root-ca.crt"}}}});
  sources.push_back({{"downwardAPI",
                      {{"items",
                        {{{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}},
                          {"path", "namespace"}}}}}}});
  auto& volumes = spec["volumes"];
  if (!volumes.is_array())
    volumes = json::array();
  volumes.push_back({{"name", name}, {"projected", {{"defaultMode", 420}, {"sources", sources}}}});
  for (const char* list : {"initContainers", "containers"})
    if (spec.contains(list) && spec[list].is_array())
      for (auto& c : spec[list]) {
        auto& mounts = c["volumeMounts"];
        if (!mounts.is_array())
          mounts = json::array();
        mounts.push_back({{"mountPath", mount_path}, {"name", name}, {"readOnly", true}});
      }
}

json controller_reference(const json& owner) {
  return {{"apiVersion", owner.value("apiVersion", std::string{})},
          {"kind", owner.value("kind", std::string{})},
          {"name", name_of(owner)},
          {"uid", uid_of(owner)},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

json pod_from_template(const json& owner, const std::string& name, const std::string& generate_name) {
  auto tmpl = owner.value("/spec/template"_json_pointer, json::object());
  json meta = json::object();
  if (auto labels = tmpl.value("/metadata/labels"_json_pointer, json()); labels.is_object())
    meta["labels"] = labels;
  if (auto annotations = tmpl.value("/metadata/annotations"_json_pointer, json()); annotations.is_object())
    meta["annotations"] = annotations;
  if (!name.empty())
    meta["name"] = name;
  else
    meta["generateName"] = generate_name;
  meta["namespace"] = namespace_of(owner);
  meta["ownerReferences"] = json::array({controller_reference(owner)});
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", meta},
              {"spec", tmpl.value("spec", json::object())}};
  default_new_pod(pod);
  return pod;
}

json object_reference(const json& object) {
  json ref = {{"apiVersion", object.value("apiVersion", std::string{})},
              {"kind", object.value("kind", std::string{})},
              {"name", name_of(object)},
              {"namespace", namespace_of(object)}};
  if (auto uid = uid_of(object); !uid.empty())
    ref["uid"] = uid;
  return ref;
}

} // namespace schedopt::sim
