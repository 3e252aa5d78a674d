// Test fixture for the pod kind's evaluation: three nodes, and helpers that build pods of
// StatefulSets and ReplicaSets whose claim "data-<pod>" is bound to PV "pv-<pod>" with
// replicas given per test.
#pragma once

#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"

namespace schedopt::test::pods {

using namespace schedopt::pod_hyperconvergence;
using namespace std::chrono_literals;

inline timestamp at(const char* text) { return *parse_rfc3339(text); }

inline node make_node(const std::string& name, bool ready = true, bool unschedulable = false) {
  node n;
  n.metadata.name = name;
  n.ready = ready;
  n.unschedulable = unschedulable;
  return n;
}

inline owner_reference controller(const std::string& kind, const std::string& name,
                                  const std::string& api_version = "apps/v1") {
  owner_reference o;
  o.api_version = api_version;
  o.kind = kind;
  o.name = name;
  o.uid = "uid-" + name;
  o.controller = true;
  return o;
}

inline pod make_pod(const std::string& ns, const std::string& name, const std::string& node,
                    std::vector<std::string> claims = {}, const std::string& phase = "Running") {
  pod p;
  p.metadata.namespace_ = ns;
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  p.metadata.creation_timestamp = "2026-11-30T11:00:00Z";
  p.node_name = node;
  p.scheduler_name = "stork";
  p.phase = phase;
  p.claim_names = std::move(claims);
  p.conditions.push_back({"Ready", "True", "", "", ""});
  return p;
}

inline stateful_set make_stateful_set(const std::string& ns, const std::string& name,
                                      int64_t replicas = 3) {
  stateful_set s;
  s.metadata.namespace_ = ns;
  s.metadata.name = name;
  s.metadata.uid = "uid-" + name;
  s.replicas = replicas;
  return s;
}

inline replica_set make_replica_set(const std::string& ns, const std::string& name,
                                    int64_t replicas = 2) {
  replica_set s;
  s.metadata.namespace_ = ns;
  s.metadata.name = name;
  s.metadata.uid = "uid-" + name;
  s.replicas = replicas;
  return s;
}

inline bool owned_by_px(const persistent_volume& p) { return p.csi_driver == "pxd.portworx.com"; }

/// A cluster of nodes n1, n2, n3 and StatefulSet ns/db; pods added per test.
struct pod_world {
  std::vector<pod> pods;
  std::map<std::string, persistent_volume_claim> pvcs;
  std::map<std::string, persistent_volume> pvs;
  std::vector<stateful_set> stateful_sets{make_stateful_set("ns", "db")};
  std::vector<replica_set> replica_sets;
  evaluation_input in;

  pod_world() {
    in.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
    in.now = at("2026-11-30T12:00:00Z");
  }

  /// Pod `name` of `owner_kind` `owner` (empty: bare) on `node`, its volume's replicas
  /// on `replicas`.
  pod& add(const std::string& name, const std::string& node, std::set<std::string> replicas,
           const std::string& owner_kind = "StatefulSet", const std::string& owner = "db",
           const std::string& ns = "ns") {
    pods.push_back(make_pod(ns, name, node, {"data-" + name}));
    if (!owner_kind.empty())
      pods.back().metadata.owner_references.push_back(controller(owner_kind, owner));
    persistent_volume_claim c;
    c.metadata.namespace_ = ns;
    c.metadata.name = "data-" + name;
    c.volume_name = "pv-" + name;
    pvcs[ns + "/data-" + name] = c;
    persistent_volume v;
    v.metadata.name = "pv-" + name;
    v.csi_driver = "pxd.portworx.com";
    pvs["pv-" + name] = v;
    in.replicas["pv-" + name] = replica_nodes(replicas.begin(), replicas.end());
    return pods.back();
  }

  evaluation_result run() {
    in.pods = share_all(pods);
    in.stateful_sets = share_all(stateful_sets);
    in.replica_sets = share_all(replica_sets);
    in.volumes = driver_volumes_of(in.pods, index_of(pvcs), index_of(pvs), owned_by_px);
    in.usage = usage_by_node(in.pods);
    return evaluate(in);
  }
};

} // namespace schedopt::test::pods
