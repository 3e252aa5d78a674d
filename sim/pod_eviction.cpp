// Every branch follows kubernetes pkg/registry/core/pod/storage/eviction.go (the release
// with canIgnorePDB, unhealthyPodEvictionPolicy and the DisruptionTarget condition); the
// messages are apiserver's, since kubectl drain and controllers print and match them.
// kube-apiserver serializes the PDB check and decrement with optimistic concurrency on
// the PDB; here the check and the decrement are one store.modify under the store's lock,
// which admits the same outcomes.
#include "sim/pod_eviction.hpp"

#include <vector>

#include "model/timestamp.hpp"
#include "sim/api_server_status.hpp"
#include "sim/kubevirt_cr_settings.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_deletion.hpp"
#include "sim/pod_eviction_admitter.hpp"
#include "sim/pod_facts.hpp"
#include "sim/selectors.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

/// eviction.go MaxDisruptedPodSize.
constexpr std::size_t max_disrupted_pods = 2000;
/// The webhook KubeVirt's operator registers for pods/eviction (virt-operator
/// resource/generate/components/webhooks.go).
constexpr const char* kubevirt_eviction_webhook = "virt-launcher-eviction-interceptor.kubevirt.io";
constexpr const char* budget_message = "Cannot evict pod as it would violate the pod's disruption budget.";

eviction_outcome answer(eviction_outcome o, int code, json body, std::string outcome) {
  o.code = code;
  o.body = std::move(body);
  o.outcome = std::move(outcome);
  return o;
}

/// apimachinery errors.NewTooManyRequests with a DisruptionBudget cause
/// (policyv1.DisruptionBudgetCause).
json too_many_requests(const std::string& cause, int retry_after) {
  json details = {{"causes", json::array({{{"reason", "DisruptionBudget"}, {"message", cause}}})}};
  if (retry_after > 0)
    details["retryAfterSeconds"] = retry_after;
  return status_failure(429, "TooManyRequests", budget_message, details);
}

/// errors.NewForbidden(policy.Resource("poddisruptionbudget"), name, err).
json pdb_forbidden(const std::string& pdb, const std::string& why) {
  return status_failure(403, "Forbidden", "poddisruptionbudget.policy \"" + pdb + "\" is forbidden: " + why,
                        {{"name", pdb}, {"group", "policy"}, {"kind", "poddisruptionbudget"}});
}

/// propagateDryRun: the request's ?dryRun or the Eviction's deleteOptions.dryRun.
bool is_dry_run(const eviction_request& r) {
  if (r.dry_run)
    return true;
  auto list = r.body.value("/deleteOptions/dryRun"_json_pointer, json::array());
  for (const auto& v : list)
    if (v == "All")
      return true;
  return false;
}

/// canIgnorePDB: a pod that is terminal, Pending or already being deleted goes without
/// a budget check (it disrupts nothing more than it already does).
bool can_ignore_pdb(const json& pod) {
  auto phase = pod_phase(pod);
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" || is_terminating(pod);
}

/// getPodDisruptionBudgets: PDBs of the pod's namespace whose selector matches it; an
/// invalid, nil or empty selector matches nothing here.
std::vector<json> budgets_of(object_store& store, const json& pod) {
  std::vector<json> out;
  auto labels = pod.value("/metadata/labels"_json_pointer, json::object());
  for (const auto& stored : store.list_stored(pdbs_key, namespace_of(pod)).items) {
    auto pdb = stored->parsed();
    auto object = pdb->value("/spec/selector"_json_pointer, json());
    auto selector = label_selector::from_object(object);
    if (!object.is_object() || !selector || selector->empty() || !selector->matches(labels))
      continue;
    out.push_back(*pdb);
  }
  return out;
}

/// addConditionAndDeletePod: DisruptionTarget=True (EvictionByEvictionAPI) on the pod's
/// status, then the pod registry's graceful delete. Nothing is written in a dry run.
expected<json> condition_and_delete(object_store& store, const json& pod, bool dry_run) {
  if (dry_run)
    return pod;
  auto ns = namespace_of(pod);
  auto name = name_of(pod);
  auto now = format_rfc3339(std::chrono::system_clock::now());
  store.modify(
    pods_key, ns, name,
    [&](json& p) { return set_pod_condition(p, "DisruptionTarget", "True", now, "EvictionByEvictionAPI", "Eviction API: evicting"); },
    true);
  return delete_pod(store, ns, name, json::object());
}

int64_t int_at(const json& j, const json::json_pointer& p) {
  if (!j.contains(p) || !j.at(p).is_number_integer())
    return 0;
  return j.at(p).get<int64_t>();
}

} // namespace

json eviction_success_status() {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"}, {"code", 201}};
}

eviction_outcome evict_pod(object_store& store, const eviction_request& request) {
  eviction_outcome o;
  o.dry_run = is_dry_run(request);
  // EvictionREST.Create: "name in URL does not match name in Eviction object".
  if (name_of(request.body) != request.name)
    return answer(o, 400, status_failure(400, "BadRequest", "name in URL does not match name in Eviction object"),
                  "BadRequest");

  // The validating webhook runs before the REST storage; KubeVirt's lets a request for a
  // pod it cannot read pass (Admit: NewPassingAdmissionResponse on a Get error).
  auto found = store.get(pods_key, request.ns, request.name);
  if (found && is_virt_launcher(*found) && !is_pod_terminal(*found)) {
    auto vmi = text_at(*found, json::json_pointer{std::string{"/metadata/annotations/"} + "kubevirt.io~1domain"});
    if (!vmi.empty()) {
      auto verdict = admit_pod_eviction(store, {request.ns, vmi, text_at(*found, "/spec/nodeName"_json_pointer)},
                                        read_kubevirt_cr_settings(store), o.dry_run);
      if (!verdict.allowed) {
        // apiserver admission/plugin/webhook/errors ToStatusErr: the webhook's code (429)
        // and message, prefixed with who denied it; no reason.
        json body = {{"kind", "Status"},
                     {"apiVersion", "v1"},
                     {"metadata", json::object()},
                     {"status", "Failure"},
                     {"message", "admission webhook \"" + std::string{kubevirt_eviction_webhook}
                                   + "\" denied the request: " + verdict.message},
                     {"code", 429}};
        o.pod_uid = uid_of(*found);
        o.node = text_at(*found, "/spec/nodeName"_json_pointer);
        return answer(o, 429, body, "Denied");
      }
    }
  }

  auto pod = store.get(pods_key, request.ns, request.name);
  if (!pod)
    return answer(o, 404,
                  status_failure(404, "NotFound", "pods \"" + request.name + "\" not found",
                                 {{"name", request.name}, {"kind", "pods"}}),
                  "NotFound");
  o.pod_uid = uid_of(*pod);
  o.node = text_at(*pod, "/spec/nodeName"_json_pointer);
  o.pod_ready = is_pod_ready(*pod);

  auto evicted = [&](eviction_outcome done) {
    auto deleted = condition_and_delete(store, *pod, done.dry_run);
    if (!deleted) {
      auto code = status_code_of(deleted.err());
      return answer(done, code, status_for_error(deleted.err(), nullptr, request.name), "NotFound");
    }
    return answer(done, 201, eviction_success_status(), "Evicted");
  };

  if (can_ignore_pdb(*pod))
    return evicted(o);

  auto budgets = budgets_of(store, *pod);
  if (budgets.size() > 1) {
    // A Status returned as the object, not an error: no reason, code 500.
    json body = {{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", json::object()},
                 {"status", "Failure"},
                 {"message", "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."},
                 {"code", 500}};
    return answer(o, 500, body, "MultipleBudgets");
  }
  if (budgets.empty())
    return evicted(o);

  const auto& budget = budgets.front();
  o.pdb = name_of(budget);
  o.disruptions_allowed = int_at(budget, "/status/disruptionsAllowed"_json_pointer);

  // An unready pod does not count as healthy: it may go without a decrement when the
  // budget says so (AlwaysAllow), or while the healthy pods meet the budget anyway.
  if (!o.pod_ready) {
    auto policy = text_at(budget, "/spec/unhealthyPodEvictionPolicy"_json_pointer);
    auto current = int_at(budget, "/status/currentHealthy"_json_pointer);
    auto desired = int_at(budget, "/status/desiredHealthy"_json_pointer);
    if (policy == "AlwaysAllow" || (current >= desired && desired > 0))
      return evicted(o);
  }

  // checkAndDecrement, on the PDB as stored now.
  std::optional<eviction_outcome> refused;
  auto now = format_rfc3339(std::chrono::system_clock::now());
  auto decremented = store.modify(
    pdbs_key, request.ns, o.pdb,
    [&](json& pdb) {
      auto& status = pdb["status"];
      if (!status.is_object())
        status = json::object();
      auto allowed = int_at(pdb, "/status/disruptionsAllowed"_json_pointer);
      o.disruptions_allowed = allowed;
      if (int_at(pdb, "/status/observedGeneration"_json_pointer) < int_at(pdb, "/metadata/generation"_json_pointer)) {
        o.retry_after_seconds = 10;
        refused = answer(o, 429,
                         too_many_requests("The disruption budget " + o.pdb + " is still being processed by the server.", 10),
                         "BudgetNotObserved");
        return false;
      }
      if (allowed < 0) {
        refused = answer(o, 403, pdb_forbidden(o.pdb, "pdb disruptions allowed is negative"), "Forbidden");
        return false;
      }
      auto disrupted = status.value("disruptedPods", json::object());
      if (disrupted.is_object() && disrupted.size() > max_disrupted_pods) {
        refused = answer(o, 403,
                         pdb_forbidden(o.pdb, "DisruptedPods map too big - too many evictions not confirmed by PDB controller"),
                         "Forbidden");
        return false;
      }
      if (allowed == 0) {
        refused = answer(o, 429,
                         too_many_requests("The disruption budget " + o.pdb + " needs "
                                             + std::to_string(int_at(pdb, "/status/desiredHealthy"_json_pointer))
                                             + " healthy pods and has "
                                             + std::to_string(int_at(pdb, "/status/currentHealthy"_json_pointer))
                                             + " currently",
                                           0),
                         "DisruptionBudget");
        return false;
      }
      o.budget_decremented = true;
      if (o.dry_run)
        return false; // "If this is a dry-run, we don't need to go any further than that."
      status["disruptionsAllowed"] = allowed - 1;
      if (allowed - 1 == 0) {
        // component-helpers apps/poddisruptionbudget UpdateDisruptionAllowedCondition.
        auto& conditions = status["conditions"];
        if (!conditions.is_array())
          conditions = json::array();
        bool set = false;
        for (auto& c : conditions)
          if (c.value("type", "") == "DisruptionAllowed") {
            if (c.value("status", "") != "False")
              c["lastTransitionTime"] = now;
            c["status"] = "False";
            c["reason"] = "InsufficientPods";
            c["observedGeneration"] = status.value("observedGeneration", 0);
            set = true;
          }
        if (!set)
          conditions.push_back({{"type", "DisruptionAllowed"},
                                {"status", "False"},
                                {"reason", "InsufficientPods"},
                                {"message", ""},
                                {"observedGeneration", status.value("observedGeneration", 0)},
                                {"lastTransitionTime", now}});
      }
      if (!status["disruptedPods"].is_object())
        status["disruptedPods"] = json::object();
      status["disruptedPods"][request.name] = now;
      return true;
    },
    true);
  if (refused)
    return *refused;
  if (!decremented)
    return answer(o, status_code_of(decremented.err()), status_for_error(decremented.err(), nullptr, o.pdb),
                  "NotFound");
  return evicted(o);
}

} // namespace schedopt::sim
