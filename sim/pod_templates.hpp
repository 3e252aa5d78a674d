// Pods as the API server stores them on create and as the workload controllers stamp
// them out of a template: defaults, the Pending status a new pod gets, owner references.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

/// What kube-apiserver fills in on a new pod: the v1 defaults (pkg/apis/core/v1/
/// defaults.go SetDefaults_PodSpec, SetDefaults_Container: schedulerName
/// default-scheduler, restartPolicy Always, dnsPolicy ClusterFirst,
/// terminationGracePeriodSeconds 30, ...), the DefaultTolerationSeconds admission
/// plugin's not-ready/unreachable tolerations (300s), and the registry's
/// podStrategy.PrepareForCreate status (phase Pending, qosClass).
void default_new_pod(nlohmann::json& pod);

/// The ServiceAccount admission plugin's token volume on a pod created through the API
/// (plugin/pkg/admission/serviceaccount/admission.go mountServiceAccountToken): a
/// projected "kube-api-access-<5 random>" volume of the token, the cluster's CA and the
/// namespace, mounted read-only in every container, unless the pod opts out with
/// automountServiceAccountToken false or a container already mounts that path. Pods the
/// simulator stamps out itself go without: at scale the volume would only cost memory.
void mount_service_account_token(nlohmann::json& pod);

/// A controller's reference to `owner` (apimachinery meta/v1 NewControllerRef):
/// controller and blockOwnerDeletion true.
nlohmann::json controller_reference(const nlohmann::json& owner);

/// A pod from `owner`'s spec.template (kubernetes pkg/controller/controller_utils.go
/// GetPodFromTemplate): the template's labels, annotations and spec, the owner's
/// controller reference, `name` or else `generate_name`, in the owner's namespace;
/// defaulted as the API server would store it.
nlohmann::json pod_from_template(const nlohmann::json& owner, const std::string& name,
                                 const std::string& generate_name);

/// An involvedObject / objectRef to a namespaced object, for Events.
nlohmann::json object_reference(const nlohmann::json& object);

} // namespace schedopt::sim
