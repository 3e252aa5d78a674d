// Independent placement ground truth (docs/design.md §2) computed by the test from the simulator's
// objects: PVC -> PV -> replica nodes (PV node affinity for csi-topology, the Portworx
// SDK gateway for portworx, running replicas.longhorn.io for longhorn), node scores,
// best nodes, candidates and target nodes (nodes KubeVirt runs on and whose CPU accepts
// the VM's host model, from the node labels).
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "e2e/kube_calls.hpp"

namespace schedopt::e2e {

struct vmi_truth {
  std::string ns;
  std::string name;
  std::string node;
  bool has_driver_volume = false;
  std::string error;              // evaluation error text, e.g. persistentvolumeclaims "x" not found
  std::set<std::string> best;     // nodes scoring the highest
  int node_score = 0;             // score of the node it runs on
  bool misplaced = false;         // semi or non: a candidate
  bool live_migratable = true;
  std::string not_migratable_reason;
  std::vector<std::string> targets; // Ready, schedulable, not the current node: best, or
                                    // for a candidate the next level above node_score
  std::set<std::string> above;      // every node scoring above the current one
  std::string key() const { return ns + "/" + name; }
};

inline std::set<std::string> affinity_hostnames(const json& pv) {
  std::set<std::string> out;
  auto terms = pv.value("/spec/nodeAffinity/required/nodeSelectorTerms"_json_pointer, json::array());
  for (auto& term : terms)
    for (auto& expr : term.value("matchExpressions", json::array()))
      if (expr.value("key", "") == "kubernetes.io/hostname" && expr.value("operator", "") == "In")
        for (auto& v : expr.value("values", json::array()))
          out.insert(v.get<std::string>());
  return out;
}

/// GET on the simulator's Portworx SDK gateway, over HTTPS with its CA and with its
/// token (unless `with_token` is false) when it was started so; status 0 when unreachable.
inline http_reply sdk_get(const sim_process& sim, const std::string& path, bool with_token = true) {
  return plain_get(sim.sdk_url() + path, {with_token ? sim.sdk_token() : std::string{}, sim.sdk_ca_file()});
}

/// Replica nodes of a Portworx volume, mapped from Portworx node ids to Kubernetes names.
inline std::set<std::string> portworx_replicas(const sim_process& sim, const std::string& volume_id,
                                               std::map<std::string, std::string>& node_names) {
  auto reply = sdk_get(sim, "/v1/volumes/inspect/" + volume_id);
  if (reply.status != 200)
    throw std::runtime_error("SDK volume inspect " + volume_id + ": " + std::to_string(reply.status));
  std::set<std::string> out;
  for (auto& set : reply.json().value("/volume/replica_sets"_json_pointer, json::array()))
    for (auto& id : set.value("nodes", json::array())) {
      auto px = id.get<std::string>();
      if (!node_names.count(px)) {
        auto node = sdk_get(sim, "/v1/nodes/inspect/" + px);
        if (node.status != 200)
          throw std::runtime_error("SDK node inspect " + px + ": " + std::to_string(node.status));
        node_names[px] = node.json().value("/node/scheduler_node_name"_json_pointer, std::string());
      }
      out.insert(node_names[px]);
    }
  return out;
}

/// Every Running VMI with a node, sorted by (namespace, name).
inline std::vector<vmi_truth> ground_truth(const sim_process& sim, const std::string& driver) {
  std::map<std::string, json> pvcs, pvs;
  for (auto& c : items(sim, "/api/v1/persistentvolumeclaims"))
    pvcs[c["metadata"]["namespace"].get<std::string>() + "/" + c["metadata"]["name"].get<std::string>()] = c;
  for (auto& v : items(sim, "/api/v1/persistentvolumes"))
    pvs[v["metadata"]["name"].get<std::string>()] = v;
  std::map<std::string, bool> usable;
  // KubeVirt's node facts (virt-handler's node labeller): the host-model CPU of each node,
  // and the models a node accepts migrations of.
  std::map<std::string, std::string> host_model;
  std::map<std::string, std::set<std::string>> accepts_model;
  for (auto& n : items(sim, "/api/v1/nodes")) {
    bool ready = false;
    for (auto& c : n.value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", "") == "Ready")
        ready = c.value("status", "") == "True";
    bool cordoned = n.value("/spec/unschedulable"_json_pointer, false);
    auto labels = n.value("/metadata/labels"_json_pointer, json::object());
    bool virt_handler = labels.value("kubevirt.io/schedulable", "") == "true";
    auto name = n["metadata"]["name"].get<std::string>();
    usable[name] = ready && !cordoned && virt_handler;
    for (auto& [key, value] : labels.items()) {
      static const std::string host_prefix = "host-model-cpu.node.kubevirt.io/";
      static const std::string migration_prefix = "cpu-model-migration.node.kubevirt.io/";
      if (value != "true")
        continue;
      if (key.rfind(host_prefix, 0) == 0)
        host_model[name] = key.substr(host_prefix.size());
      if (key.rfind(migration_prefix, 0) == 0)
        accepts_model[name].insert(key.substr(migration_prefix.size()));
    }
  }
  // A host-model VM (the default CPU model) migrates only to nodes that accept its current
  // node's host model; nodes without CPU labels at all constrain nothing.
  auto accepts = [&](const std::string& target, const std::string& source) {
    auto model = host_model.find(source);
    if (model == host_model.end())
      return true;
    auto a = accepts_model.find(target);
    return a != accepts_model.end() && a->second.count(model->second) > 0;
  };
  std::map<std::string, std::string> px_names;
  // Longhorn: volume name -> nodes of its running Replica CRs.
  std::map<std::string, std::set<std::string>> longhorn_running;
  if (driver == "longhorn")
    for (auto& r : items(sim, "/apis/longhorn.io/v1beta2/namespaces/longhorn-system/replicas"))
      if (r.value("/status/currentState"_json_pointer, std::string()) == "running")
        longhorn_running[r.value("/spec/volumeName"_json_pointer, std::string())].insert(
          r.value("/spec/nodeID"_json_pointer, std::string()));

  std::vector<vmi_truth> out;
  for (auto& vmi : items(sim, vmis_path)) {
    vmi_truth t;
    t.ns = vmi["metadata"]["namespace"];
    t.name = vmi["metadata"]["name"];
    t.node = vmi.value("/status/nodeName"_json_pointer, std::string());
    if (vmi.value("/status/phase"_json_pointer, std::string()) != "Running" || t.node.empty())
      continue;
    for (auto& c : vmi.value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", "") == "LiveMigratable" && c.value("status", "") == "False") {
        t.live_migratable = false;
        t.not_migratable_reason = c.value("reason", "");
        if (t.not_migratable_reason.empty())
          t.not_migratable_reason = c.value("message", "");
      }
    std::map<std::string, int> score;
    std::set<std::string> seen_pvs;
    for (auto& vol : vmi.value("/spec/volumes"_json_pointer, json::array())) {
      std::string claim = vol.value("/persistentVolumeClaim/claimName"_json_pointer, std::string());
      if (claim.empty())
        claim = vol.value("/dataVolume/name"_json_pointer, std::string());
      if (claim.empty())
        continue;
      auto pvc = pvcs.find(t.ns + "/" + claim);
      if (pvc == pvcs.end()) {
        t.error = "persistentvolumeclaims \"" + claim + "\" not found";
        break;
      }
      auto pv = pvs.find(pvc->second.value("/spec/volumeName"_json_pointer, std::string()));
      if (pv == pvs.end()) {
        t.error = "persistentvolumes not found for claim " + claim;
        break;
      }
      std::set<std::string> replicas;
      if (driver == "csi-topology") {
        replicas = affinity_hostnames(pv->second);
      } else if (pv->second.value("/spec/csi/driver"_json_pointer, std::string()) == "pxd.portworx.com") {
        replicas = portworx_replicas(
          sim, pv->second.value("/spec/csi/volumeHandle"_json_pointer, std::string()), px_names);
      } else if (pv->second.value("/spec/csi/driver"_json_pointer, std::string()) == "driver.longhorn.io") {
        replicas = longhorn_running[pv->second.value("/spec/csi/volumeHandle"_json_pointer, std::string())];
      }
      if (replicas.empty() || !seen_pvs.insert(pv->first).second)
        continue;
      t.has_driver_volume = true;
      for (auto& n : replicas)
        ++score[n];
    }
    if (t.error.empty() && t.has_driver_volume) {
      int best = 0;
      for (auto& [n, s] : score)
        best = std::max(best, s);
      for (auto& [n, s] : score)
        if (s == best)
          t.best.insert(n);
      t.misplaced = !t.best.count(t.node);
      t.node_score = score.count(t.node) ? score[t.node] : 0;
      for (auto& [n, s] : score)
        if (s > t.node_score && n != t.node)
          t.above.insert(n);
      // docs/design.md §2.5: the best nodes; for a candidate with none usable, the next score
      // level above its current node's.
      for (int level = best; t.targets.empty() && (level == best || level > t.node_score); --level)
        for (auto& [n, s] : score)
          if (s == level && n != t.node && usable[n] && accepts(n, t.node))
            t.targets.push_back(n);
    }
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [](const vmi_truth& a, const vmi_truth& b) {
    return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
  });
  return out;
}

/// Misplaced VMIs that every filter lets through (ignoring in-flight VMIMs and cool-off,
/// which the tests arrange explicitly).
inline std::vector<vmi_truth> migratable_candidates(const std::vector<vmi_truth>& truth) {
  std::vector<vmi_truth> out;
  for (auto& t : truth)
    if (t.error.empty() && t.misplaced && t.live_migratable && !t.targets.empty())
      out.push_back(t);
  return out;
}

/// One pod as SPEC §9 sees it, computed as ground_truth() computes a VMI's: its claims
/// -> PVs -> replica nodes (PV node affinity for csi-topology, the Portworx SDK gateway,
/// running Longhorn replicas), scored per node.
struct pod_truth {
  std::string ns;
  std::string name;
  std::string uid;
  std::string node;
  std::string phase;
  bool ready = false;
  bool virt_launcher = false;     // label kubevirt.io=virt-launcher
  std::string scheduler_name;     // spec.schedulerName
  std::string owner_kind;         // the controller reference's kind, "" for a bare pod
  std::string owner_name;
  bool has_driver_volume = false;
  std::string error;              // a claim or volume that could not be read
  std::vector<std::set<std::string>> replicas; // per driver volume, in volume order
  std::map<std::string, int> score;            // node -> volumes with a replica there
  std::set<std::string> best;                  // nodes scoring the highest
  int node_score = 0;
  bool misplaced = false;         // its node scores below the best
  std::set<std::string> schedulable_best; // best nodes that are Ready and not cordoned
  std::string key() const { return ns + "/" + name; }
};

/// Every pod with a node (Running or not), sorted by (namespace, name).
inline std::vector<pod_truth> pod_ground_truth(const sim_process& sim, const std::string& driver) {
  std::map<std::string, json> pvcs, pvs;
  for (auto& c : items(sim, "/api/v1/persistentvolumeclaims"))
    pvcs[c["metadata"]["namespace"].get<std::string>() + "/" + c["metadata"]["name"].get<std::string>()] = c;
  for (auto& v : items(sim, "/api/v1/persistentvolumes"))
    pvs[v["metadata"]["name"].get<std::string>()] = v;
  std::map<std::string, bool> schedulable;
  for (auto& n : items(sim, "/api/v1/nodes")) {
    bool ready = false;
    for (auto& c : n.value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", "") == "Ready")
        ready = c.value("status", "") == "True";
    schedulable[n["metadata"]["name"].get<std::string>()] = ready && !n.value("/spec/unschedulable"_json_pointer, false);
  }
  std::map<std::string, std::string> px_names;
  std::map<std::string, std::set<std::string>> longhorn_running;
  if (driver == "longhorn")
    for (auto& r : items(sim, "/apis/longhorn.io/v1beta2/namespaces/longhorn-system/replicas"))
      if (r.value("/status/currentState"_json_pointer, std::string()) == "running")
        longhorn_running[r.value("/spec/volumeName"_json_pointer, std::string())].insert(
          r.value("/spec/nodeID"_json_pointer, std::string()));
  std::vector<pod_truth> out;
  for (auto& pod : items(sim, "/api/v1/pods")) {
    pod_truth t;
    t.ns = pod["metadata"]["namespace"];
    t.name = pod["metadata"]["name"];
    t.uid = pod["metadata"]["uid"];
    t.node = pod.value("/spec/nodeName"_json_pointer, std::string());
    if (t.node.empty())
      continue;
    t.phase = pod.value("/status/phase"_json_pointer, std::string());
    for (auto& c : pod.value("/status/conditions"_json_pointer, json::array()))
      if (c.value("type", "") == "Ready")
        t.ready = c.value("status", "") == "True";
    t.virt_launcher = pod.value("/metadata/labels/kubevirt.io"_json_pointer, std::string()) == "virt-launcher";
    t.scheduler_name = pod.value("/spec/schedulerName"_json_pointer, std::string());
    for (auto& ref : pod.value("/metadata/ownerReferences"_json_pointer, json::array()))
      if (ref.value("controller", false)) {
        t.owner_kind = ref.value("kind", "");
        t.owner_name = ref.value("name", "");
      }
    for (auto& vol : pod.value("/spec/volumes"_json_pointer, json::array())) {
      auto claim = vol.value("/persistentVolumeClaim/claimName"_json_pointer, std::string());
      if (claim.empty())
        continue;
      auto pvc = pvcs.find(t.ns + "/" + claim);
      if (pvc == pvcs.end()) {
        t.error = "persistentvolumeclaims \"" + claim + "\" not found";
        break;
      }
      auto pv = pvs.find(pvc->second.value("/spec/volumeName"_json_pointer, std::string()));
      if (pv == pvs.end()) {
        t.error = "persistentvolumes not found for claim " + claim;
        break;
      }
      auto csi_driver = pv->second.value("/spec/csi/driver"_json_pointer, std::string());
      auto handle = pv->second.value("/spec/csi/volumeHandle"_json_pointer, std::string());
      std::set<std::string> replicas;
      if (driver == "csi-topology" && csi_driver == "topology.csi.schedopt.io")
        replicas = affinity_hostnames(pv->second);
      else if (csi_driver == "pxd.portworx.com")
        replicas = portworx_replicas(sim, handle, px_names);
      else if (csi_driver == "driver.longhorn.io")
        replicas = longhorn_running[handle];
      if (replicas.empty())
        continue;
      t.has_driver_volume = true;
      t.replicas.push_back(replicas);
      for (auto& n : replicas)
        ++t.score[n];
    }
    if (t.error.empty() && t.has_driver_volume) {
      int best = 0;
      for (auto& [n, s] : t.score)
        best = std::max(best, s);
      for (auto& [n, s] : t.score)
        if (s == best) {
          t.best.insert(n);
          if (schedulable[n])
            t.schedulable_best.insert(n);
        }
      t.node_score = t.score.count(t.node) ? t.score[t.node] : 0;
      t.misplaced = t.node_score < best;
    }
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(), [](const pod_truth& a, const pod_truth& b) {
    return std::tie(a.ns, a.name) < std::tie(b.ns, b.name);
  });
  return out;
}

inline std::set<std::string> keys(const std::vector<vmi_truth>& truth) {
  std::set<std::string> out;
  for (auto& t : truth)
    out.insert(t.key());
  return out;
}

} // namespace schedopt::e2e
