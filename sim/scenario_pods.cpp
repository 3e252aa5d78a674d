// Workload shapes follow `kubectl get -o json` of a database StatefulSet and a queue
// Deployment's ReplicaSet on Portworx; the pods are made by the same functions the
// simulated controllers use (sim/statefulset_controller, sim/pod_templates), so a
// replacement looks like the pod it replaces.
#include "sim/scenario_pods.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

#include "model/timestamp.hpp"
#include "sim/kubelet.hpp"
#include "sim/longhorn.hpp"
#include "sim/object_store.hpp"
#include "sim/pod_facts.hpp"
#include "sim/pod_placement.hpp"
#include "sim/pod_templates.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/scenario_random.hpp"
#include "sim/statefulset_controller.hpp"

namespace schedopt::sim {

using json = nlohmann::json;
using namespace scenario_random;

namespace {

constexpr const char* claim_size = "20Gi";

struct role {
  const char* container;
  const char* image;
  const char* mount;
};
constexpr role database{"postgres", "docker.io/library/postgres:16.4", "/var/lib/postgresql/data"};
constexpr role queue{"rabbitmq", "docker.io/library/rabbitmq:3.13", "/var/lib/rabbitmq"};
constexpr role toolbox{"toolbox", "docker.io/library/busybox:1.36", "/data"};
constexpr role agent{"fluent-bit", "docker.io/fluent/fluent-bit:3.1", "/buffers"};
constexpr role backup{"backup", "docker.io/library/postgres:16.4", "/backup"};

std::string volume_name(int k) {
  return k == 0 ? "data" : k == 1 ? "wal" : "data" + std::to_string(k + 1);
}

/// A pod template's spec: one container with requests, the volume mounts, the
/// scheduler; `claims` (volume name -> claim) become persistentVolumeClaim volumes.
json pod_spec(const role& r, const std::string& scheduler, int volumes, const std::map<std::string, std::string>& claims,
              const char* restart = "Always") {
  json mounts = json::array();
  json vols = json::array();
  for (int k = 0; k < volumes; ++k) {
    auto name = volume_name(k);
    mounts.push_back({{"name", name}, {"mountPath", std::string{r.mount} + (k == 0 ? "" : "/" + name)}});
    if (auto c = claims.find(name); c != claims.end())
      vols.push_back({{"name", name}, {"persistentVolumeClaim", {{"claimName", c->second}}}});
  }
  json spec = {{"containers",
                json::array({{{"name", r.container},
                              {"image", r.image},
                              {"resources", {{"requests", {{"cpu", "250m"}, {"memory", "512Mi"}}},
                                             {"limits", {{"memory", "1Gi"}}}}},
                              {"volumeMounts", mounts}}})},
               {"schedulerName", scheduler},
               {"restartPolicy", restart},
               {"terminationGracePeriodSeconds", 30}};
  if (!vols.empty())
    spec["volumes"] = vols;
  return spec;
}

json meta(const std::string& name, const std::string& ns, json labels) {
  return {{"name", name}, {"namespace", ns}, {"labels", std::move(labels)}};
}

json budget(const std::string& name, const std::string& ns, const json& match, const char* field, json value) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", meta(name, ns, json::object())},
          {"spec", {{"selector", {{"matchLabels", match}}}, {field, std::move(value)}}}};
}

} // namespace

const std::vector<std::string>& pod_namespaces() {
  static const std::vector<std::string> names = {"apps-a", "apps-b"};
  return names;
}

pod_scenario_planner::pod_scenario_planner(const scenario_options& options, std::vector<storage_node> nodes,
                                           std::vector<bool> tainted)
  : options_(options), nodes_(std::move(nodes)), tainted_(std::move(tainted)),
    rng_(options.seed ^ 0x706f642d706c616eULL) {
  bool longhorn = options.driver == "longhorn";
  topology_ = options.driver == "csi-topology";
  driver_ = longhorn ? longhorn_csi_driver : topology_ ? topology_csi_driver : portworx_csi_driver;
  storage_class_ = longhorn ? "longhorn" : topology_ ? "topology-local-replicated" : "px-csi-db";
}

planned_volume pod_scenario_planner::plan_volume(const std::string& ns, const std::string& claim,
                                                 const std::string& app, const planned_volume* same_as) {
  std::vector<std::string> names;
  for (const auto& n : nodes_)
    names.push_back(n.name);
  std::shuffle(names.begin(), names.end(), rng_);
  names.resize(static_cast<std::size_t>(std::clamp(options_.replicas, 1, static_cast<int>(names.size()))));
  if (topology_ && same_as != nullptr)
    names = same_as->backing.replica_nodes;
  planned_volume v;
  auto& sv = v.backing;
  sv.id = px_volume_id(rng_);
  sv.pv_name = "pvc-" + uuid(rng_);
  sv.name = sv.pv_name;
  if (options_.driver == "longhorn")
    sv.id = sv.pv_name;
  sv.pvc_namespace = ns;
  sv.pvc_name = claim;
  sv.driver = driver_;
  sv.replica_nodes = names;
  sv.size_bytes = 21474836480;
  v.pvc = pvc_object(ns, claim, sv.pv_name, storage_class_, driver_, false, false);
  v.pvc["spec"]["volumeMode"] = "Filesystem";
  v.pvc["metadata"]["labels"] = {{"app", app}};
  std::vector<std::string> affinity = topology_ ? names : std::vector<std::string>{};
  std::sort(affinity.begin(), affinity.end());
  v.pv = pv_object(sv.pv_name, v.pvc, driver_, sv.id, storage_class_, affinity);
  v.pv["spec"]["volumeMode"] = "Filesystem";
  return v;
}

std::string pod_scenario_planner::place(const std::vector<std::size_t>& volumes, const std::vector<planned_volume>& all,
                                        bool misplaced) {
  // Nodes a scheduler could have used: untainted, and for csi-topology inside every
  // volume's PV node affinity (its replica nodes).
  std::map<std::string, int> score;
  std::vector<std::string> allowed;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto& name = nodes_[i].name;
    if (i < tainted_.size() && tainted_[i])
      continue;
    bool fits = true;
    for (auto v : volumes) {
      const auto& replicas = all[v].backing.replica_nodes;
      bool holds = std::find(replicas.begin(), replicas.end(), name) != replicas.end();
      score[name] += holds ? 1 : 0;
      if (topology_ && !holds)
        fits = false;
    }
    if (fits)
      allowed.push_back(name);
  }
  if (allowed.empty()) // every node tainted: run where the taint is, as a tolerating pod would
    for (const auto& n : nodes_)
      allowed.push_back(n.name);
  int best = 0;
  for (const auto& n : allowed)
    best = std::max(best, score[n]);
  std::vector<std::string> best_nodes, worse_nodes;
  for (const auto& n : allowed)
    (score[n] == best ? best_nodes : worse_nodes).push_back(n);
  return misplaced && !worse_nodes.empty() ? pick(rng_, worse_nodes) : pick(rng_, best_nodes);
}

std::vector<planned_workload> pod_scenario_planner::plan() {
  std::vector<planned_workload> out;
  int total = std::max(0, options_.pods);
  if (total == 0)
    return out;
  int volumes = std::max(1, options_.volumes_per_pod);
  auto misplaced = chosen(rng_, total, options_.pods_misplaced);
  int uncontrolled = static_cast<int>(std::llround(std::clamp(options_.pods_uncontrolled, 0.0, 1.0) * total));
  int controlled = total - uncontrolled;
  int next_pod = 0;
  int workload_index = 0;
  const auto& namespaces = pod_namespaces();
  auto next_ns = [&] { return namespaces[static_cast<std::size_t>(workload_index) % namespaces.size()]; };

  // StatefulSets and ReplicaSets, each with a budget.
  for (int remaining = controlled; remaining > 0; ++workload_index) {
    planned_workload w;
    w.ns = next_ns();
    bool stateful = coin(rng_, options_.pods_in_statefulsets);
    int replicas = stateful ? std::min(remaining, std::uniform_int_distribution<int>{1, 3}(rng_)) : 1;
    auto scheduler = coin(rng_, options_.pods_default_scheduler) ? std::string{"default-scheduler"}
                                                                 : std::string{stork_scheduler_name};
    bool blocked = coin(rng_, options_.pdb_blocked);
    bool overlap = coin(rng_, options_.pdb_overlap);
    remaining -= replicas;
    if (stateful) {
      w.kind = "StatefulSet";
      auto name = numbered("pg-", workload_index + 1, controlled);
      json labels = {{"app", name}};
      json claim_templates = json::array();
      for (int k = 0; k < volumes; ++k)
        claim_templates.push_back({{"apiVersion", "v1"},
                                   {"kind", "PersistentVolumeClaim"},
                                   {"metadata", {{"name", volume_name(k)}}},
                                   {"spec",
                                    {{"accessModes", json::array({"ReadWriteOnce"})},
                                     {"storageClassName", storage_class_},
                                     {"volumeMode", "Filesystem"},
                                     {"resources", {{"requests", {{"storage", claim_size}}}}}}}});
      w.owner = {{"apiVersion", "apps/v1"},
                 {"kind", "StatefulSet"},
                 {"metadata", meta(name, w.ns, labels)},
                 {"spec",
                  {{"replicas", replicas},
                   {"selector", {{"matchLabels", labels}}},
                   {"serviceName", name},
                   {"podManagementPolicy", "OrderedReady"},
                   {"updateStrategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"partition", 0}}}}},
                   {"revisionHistoryLimit", 10},
                   {"persistentVolumeClaimRetentionPolicy", {{"whenDeleted", "Retain"}, {"whenScaled", "Retain"}}},
                   {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec(database, scheduler, volumes, {})}}},
                   {"volumeClaimTemplates", claim_templates}}}};
      for (int ord = 0; ord < replicas; ++ord) {
        planned_pod p;
        p.name = name + "-" + std::to_string(ord);
        p.ordinal = ord;
        for (int k = 0; k < volumes; ++k) {
          p.volumes.push_back(w.volumes.size());
          auto claim = statefulset_claim_name(w.owner, claim_templates[static_cast<std::size_t>(k)], ord);
          w.volumes.push_back(plan_volume(w.ns, claim, name, k == 0 ? nullptr : &w.volumes[p.volumes.front()]));
        }
        w.pods.push_back(std::move(p));
      }
      w.budgets.push_back(budget(name, w.ns, labels, "maxUnavailable", blocked ? 0 : 1));
      if (overlap)
        w.budgets.push_back(budget(name + "-quorum", w.ns, labels, "minAvailable", 1));
    } else {
      w.kind = "ReplicaSet";
      auto app = numbered("mq-", workload_index + 1, controlled);
      auto hash = name_suffix(rng_, 10);
      auto name = app + "-" + hash;
      json labels = {{"app", app}, {"pod-template-hash", hash}};
      std::map<std::string, std::string> claims;
      planned_pod p;
      for (int k = 0; k < volumes; ++k) {
        claims[volume_name(k)] = app + "-" + volume_name(k);
        p.volumes.push_back(w.volumes.size());
        w.volumes.push_back(
          plan_volume(w.ns, app + "-" + volume_name(k), app, k == 0 ? nullptr : &w.volumes[p.volumes.front()]));
      }
      w.owner = {{"apiVersion", "apps/v1"},
                 {"kind", "ReplicaSet"},
                 {"metadata", meta(name, w.ns, labels)},
                 {"spec",
                  {{"replicas", 1},
                   {"selector", {{"matchLabels", labels}}},
                   {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod_spec(queue, scheduler, volumes, claims)}}}}}};
      p.name = name + "-" + name_suffix(rng_, 5);
      w.pods.push_back(std::move(p));
      json app_only = {{"app", app}};
      w.budgets.push_back(budget(app, w.ns, app_only, "maxUnavailable", blocked ? 0 : 1));
      if (overlap)
        w.budgets.push_back(budget(app + "-quorum", w.ns, app_only, "minAvailable", 1));
    }
    for (auto& p : w.pods)
      p.node = place(p.volumes, w.volumes, misplaced[static_cast<std::size_t>(next_pod++)]);
    out.push_back(std::move(w));
  }

  // Pods no workload controller re-places: bare, DaemonSet's, Job's, in turn.
  for (int i = 0; i < uncontrolled; ++i, ++workload_index) {
    planned_workload w;
    w.ns = next_ns();
    auto scheduler = coin(rng_, options_.pods_default_scheduler) ? std::string{"default-scheduler"}
                                                                 : std::string{stork_scheduler_name};
    planned_pod p;
    std::map<std::string, std::string> claims;
    std::string base;
    const role* r = &toolbox;
    switch (i % 3) {
      case 0:
        base = numbered("tool-", i + 1, uncontrolled);
        p.name = base;
        break;
      case 1:
        w.kind = "DaemonSet";
        r = &agent;
        base = numbered("agent-", i + 1, uncontrolled);
        p.name = base + "-" + name_suffix(rng_, 5);
        break;
      default:
        w.kind = "Job";
        r = &backup;
        base = numbered("backup-", i + 1, uncontrolled);
        p.name = base + "-" + name_suffix(rng_, 5);
    }
    for (int k = 0; k < volumes; ++k) {
      claims[volume_name(k)] = p.name + "-" + volume_name(k);
      p.volumes.push_back(w.volumes.size());
      w.volumes.push_back(
        plan_volume(w.ns, p.name + "-" + volume_name(k), base, k == 0 ? nullptr : &w.volumes[p.volumes.front()]));
    }
    json labels = {{"app", base}};
    json tmpl = {{"metadata", {{"labels", labels}}},
                 {"spec", pod_spec(*r, scheduler, volumes, claims, w.kind == "Job" ? "Never" : "Always")}};
    if (w.kind == "DaemonSet")
      w.owner = {{"apiVersion", "apps/v1"},
                 {"kind", "DaemonSet"},
                 {"metadata", meta(base, w.ns, labels)},
                 {"spec", {{"selector", {{"matchLabels", labels}}}, {"template", tmpl}}}};
    else if (w.kind == "Job")
      w.owner = {{"apiVersion", "batch/v1"},
                 {"kind", "Job"},
                 {"metadata", meta(base, w.ns, labels)},
                 {"spec", {{"backoffLimit", 6}, {"completions", 1}, {"parallelism", 1}, {"template", tmpl}}}};
    else
      w.bare_template = {{"metadata", meta(base, w.ns, labels)}, {"spec", {{"template", tmpl}}}};
    p.node = place(p.volumes, w.volumes, misplaced[static_cast<std::size_t>(next_pod++)]);
    w.pods.push_back(std::move(p));
    out.push_back(std::move(w));
  }
  return out;
}

namespace {

const char* owner_key(const std::string& kind) {
  return kind == "StatefulSet"  ? statefulsets_key
         : kind == "ReplicaSet" ? replicasets_key
         : kind == "DaemonSet"  ? daemonsets_key
                                : jobs_key;
}

/// A workload's claims and their volumes, bound to each other; the volumes join `storage`.
void store_volumes(object_store& store, storage_backend& storage, planned_workload& w, bool longhorn) {
  for (auto& v : w.volumes) {
    auto pvc = store.create("persistentvolumeclaims", v.pvc);
    if (!created("PVC", pvc))
      continue;
    bind_claim(v.pv, *pvc);
    if (longhorn)
      if (auto made = create_longhorn_volume(store, v.backing, {}); !made)
        spdlog::warn("scenario: {}", made.err().message);
    created("PV", store.create("persistentvolumes", v.pv));
    storage.add_volume(v.backing);
  }
}

void store_budgets(object_store& store, const planned_workload& w) {
  for (const auto& b : w.budgets)
    created("PodDisruptionBudget", store.create(pdbs_key, b));
}

} // namespace

std::string first_placement_key(const json& pod) {
  auto ns = namespace_of(pod);
  for (const auto& ref : pod.value("/metadata/ownerReferences"_json_pointer, json::array()))
    if (ref.value("controller", false) && ref.value("kind", "") != "StatefulSet")
      return ns + "/" + ref.value("name", "");
  return ns + "/" + name_of(pod);
}

void store_pod_workloads(object_store& store, storage_backend& storage, std::vector<planned_workload>& workloads,
                         const std::map<std::string, std::string>& node_ips, bool longhorn) {
  auto now = format_rfc3339(std::chrono::system_clock::now());
  for (const auto& ns : pod_namespaces())
    created("namespace", store.create("namespaces", namespace_object(ns)));
  for (auto& w : workloads) {
    json owner;
    if (!w.owner.is_null()) {
      if (w.kind == "DaemonSet")
        w.owner["status"] = {{"currentNumberScheduled", 1}, {"desiredNumberScheduled", 1}, {"numberReady", 1},
                             {"numberAvailable", 1}, {"numberMisscheduled", 0}, {"observedGeneration", 1}};
      if (w.kind == "Job")
        w.owner["status"] = {{"active", 1}, {"ready", 1}, {"startTime", now}};
      auto made = store.create(owner_key(w.kind), w.owner);
      if (!created(w.kind.c_str(), made))
        continue;
      owner = std::move(*made);
    }
    store_volumes(store, storage, w, longhorn);
    for (const auto& p : w.pods) {
      json pod;
      if (w.kind == "StatefulSet") {
        pod = statefulset_pod(owner, p.ordinal);
      } else if (!owner.is_null()) {
        pod = pod_from_template(owner, p.name, {});
        if (w.kind == "Job") {
          pod["metadata"]["labels"]["batch.kubernetes.io/job-name"] = name_of(owner);
          pod["metadata"]["labels"]["batch.kubernetes.io/controller-uid"] = uid_of(owner);
        }
        if (w.kind == "DaemonSet") // daemon/util ReplaceDaemonSetPodNodeNameNodeAffinity
          pod["spec"]["affinity"] = {
            {"nodeAffinity",
             {{"requiredDuringSchedulingIgnoredDuringExecution",
               {{"nodeSelectorTerms",
                 json::array({{{"matchFields",
                                json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", {p.node}}}})}}})}}}}}};
      } else {
        pod = pod_from_template(w.bare_template, p.name, {});
        pod["metadata"].erase("ownerReferences");
      }
      pod["spec"]["nodeName"] = p.node;
      auto ip = node_ips.find(p.node);
      // Running since the scenario began; the uid is the store's, so the pod IP is set
      // once it exists (report_pod_started derives it from the uid).
      auto made = store.create(pods_key, pod);
      if (!created("pod", made))
        continue;
      store.modify(
        pods_key, w.ns, name_of(*made),
        [&](json& stored) {
          report_pod_started(stored, ip == node_ips.end() ? std::string{} : ip->second, now);
          return true;
        },
        true);
    }
    store_budgets(store, w);
  }
}

namespace {

/// kwok's per-pod termination delay (kustomize/stage/pod/general pod-delete.yaml reads
/// this annotation; test/controlplane/kwok-stages/pod-delete.yaml too).
constexpr const char* kwok_delete_delay = "pod-delete.stage.kwok.x-k8s.io/delay";

void annotate_termination(json& pod_meta, std::chrono::milliseconds delay) {
  if (delay.count() > 0)
    pod_meta["annotations"][kwok_delete_delay] = std::to_string(delay.count()) + "ms";
}

} // namespace

first_placements create_pod_workloads(object_store& store, storage_backend& storage,
                                      std::vector<planned_workload>& workloads, bool longhorn,
                                      std::chrono::milliseconds termination_delay) {
  first_placements placements;
  for (const auto& ns : pod_namespaces())
    created("namespace", store.create("namespaces", namespace_object(ns)));
  for (auto& w : workloads) {
    // Claims before their StatefulSet, or its controller makes them from the templates,
    // unbound (pkg/controller/statefulset stateful_pod_control.go
    // createMissingPersistentVolumeClaims); budgets before the pods, so none runs uncovered.
    store_volumes(store, storage, w, longhorn);
    store_budgets(store, w);
    if (w.kind == "DaemonSet") // one node's daemon, as the scenario's one pod
      w.owner["spec"]["template"]["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", w.pods.front().node}};
    if (!w.owner.is_null()) {
      annotate_termination(w.owner["spec"]["template"]["metadata"], termination_delay);
      if (!created(w.kind.c_str(), store.create(owner_key(w.kind), w.owner)))
        continue;
      // The controller names a ReplicaSet's, DaemonSet's or Job's pod; a StatefulSet's
      // carry their ordinal names.
      for (const auto& p : w.pods)
        placements[w.ns + "/" + (w.kind == "StatefulSet" ? p.name : name_of(w.owner))] = p.node;
      continue;
    }
    for (const auto& p : w.pods) {
      auto pod = pod_from_template(w.bare_template, p.name, {});
      pod["metadata"].erase("ownerReferences");
      annotate_termination(pod["metadata"], termination_delay);
      if (created("pod", store.create(pods_key, pod)))
        placements[w.ns + "/" + p.name] = p.node;
    }
  }
  return placements;
}

} // namespace schedopt::sim
