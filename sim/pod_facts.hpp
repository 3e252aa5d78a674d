// What the simulated kube-controller-manager, scheduler and kubelet read off a pod and its
// owners: readiness, phase, controller, requests, claims. One place, so each of them
// reads a pod as the upstream helper it names does.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/json_fields.hpp"
#include "sim/target_pod_scheduler.hpp"

namespace schedopt::sim {

// The store keys of the workload types (sim/world_types, sim/discovery).
constexpr const char* pods_key = "pods";
constexpr const char* statefulsets_key = "statefulsets.apps";
constexpr const char* replicasets_key = "replicasets.apps";
constexpr const char* daemonsets_key = "daemonsets.apps";
constexpr const char* jobs_key = "jobs.batch";
constexpr const char* pdbs_key = "poddisruptionbudgets.policy";

/// KubeVirt's label on its virt-launcher pods (virtv1.AppLabel), and the annotation
/// naming the VMI (virtv1.DomainAnnotation).
constexpr const char* kubevirt_app_label = "kubevirt.io";
constexpr const char* virt_launcher_app = "virt-launcher";
constexpr const char* kubevirt_domain_annotation = "kubevirt.io/domain";

/// status.phase ("" while the API server has not defaulted it).
std::string pod_phase(const nlohmann::json& pod);

/// Succeeded or Failed (pkg/api/v1/pod util.go IsPodPhaseTerminal).
bool is_pod_terminal(const nlohmann::json& pod);

/// kubernetes pkg/api/v1/pod/util.go IsPodReady: condition Ready with status True.
bool is_pod_ready(const nlohmann::json& pod);

/// KubeVirt's virt-launcher pod (pod-eviction-admitter.go isVirtLauncher).
bool is_virt_launcher(const nlohmann::json& pod);

/// apimachinery meta/v1 controller_ref.go GetControllerOf: the ownerReference with
/// controller: true; null when none.
nlohmann::json controller_of(const nlohmann::json& object);

/// The pod's requests as the scheduler counts them (kubernetes pkg/scheduler/framework/
/// plugins/noderesources/fit.go computePodResourceRequest, through component-helpers
/// resource.PodRequests): the sum over containers, at least each init container's, plus
/// spec.overhead.
pod_resources pod_requests(const nlohmann::json& pod);

/// The claim names of the pod's persistentVolumeClaim volumes, in volume order.
std::vector<std::string> pod_claims(const nlohmann::json& pod);

/// status.conditions[type] = status (with reason and message), as pkg/api/v1/pod
/// UpdatePodCondition does: lastTransitionTime moves only when the status changes.
/// Returns whether anything changed.
bool set_pod_condition(nlohmann::json& pod, const std::string& type, const std::string& status,
                       const std::string& now, const std::string& reason = {},
                       const std::string& message = {});

} // namespace schedopt::sim
