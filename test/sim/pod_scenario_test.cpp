// The --pods scenario: reproducible for a seed, leaving a seed's VMIs as they were,
// honouring its fractions (scored independently here from the storage backend), and
// shaped and linked as a real cluster links workloads, pods, claims and budgets.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "kubevirt_test_fixture.hpp"
#include "sim/pod_facts.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

const char* pod_keys[] = {"pods", "statefulsets.apps", "replicasets.apps", "daemonsets.apps", "jobs.batch",
                          "poddisruptionbudgets.policy", "persistentvolumeclaims", "persistentvolumes"};

/// Drops what the store assigns and wall-clock times.
void strip(json& j) {
  if (j.is_object()) {
    for (auto field : {"uid", "resourceVersion", "creationTimestamp", "lastTransitionTime", "startTime", "startedAt",
                       "podIP", "podIPs", "containerID", "generation", "batch.kubernetes.io/controller-uid",
                       "virtualMachineRevisionName"})
      j.erase(field);
    for (auto& [k, v] : j.items())
      strip(v);
  } else if (j.is_array()) {
    for (auto& v : j)
      strip(v);
  }
}

json dump(object_store& store, const std::vector<std::string>& keys) {
  json all = json::object();
  for (const auto& key : keys) {
    json items = json::array();
    for (auto item : store.list(key).items) {
      strip(item);
      items.push_back(item);
    }
    all[key] = items;
  }
  return all;
}

scenario_options opts(uint64_t seed, int pods, std::string driver = "portworx") {
  scenario_options o;
  o.nodes = 6;
  o.vmis = 30;
  o.pods = pods;
  o.volumes_per_pod = 2;
  o.replicas = 2;
  o.driver = std::move(driver);
  o.seed = seed;
  return o;
}

std::vector<json> pods_of(populated_store& w) {
  return w.store.list(pods_key).items;
}

/// Replicas per node over the pod's claims, from the storage backend.
std::map<std::string, int> replica_score(populated_store& w, const json& pod) {
  std::map<std::string, int> score;
  for (const auto& claim : pod_claims(pod)) {
    auto pvc = w.store.get("persistentvolumeclaims", namespace_of(pod), claim);
    BOOST_REQUIRE(pvc);
    auto pv = w.store.get("persistentvolumes", "", (*pvc)["spec"]["volumeName"].get<std::string>());
    BOOST_REQUIRE(pv);
    auto volume = w.storage.volume((*pv)["spec"]["csi"]["volumeHandle"].get<std::string>());
    BOOST_REQUIRE(volume);
    for (const auto& n : volume->replica_nodes)
      ++score[n];
  }
  return score;
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_scenario)

BOOST_AUTO_TEST_CASE(same_seed_same_pods_other_seed_other_pods) {
  std::vector<std::string> keys(std::begin(pod_keys), std::end(pod_keys));
  populated_store a{opts(5, 40)}, b{opts(5, 40)}, c{opts(6, 40)};
  auto da = dump(a.store, keys), db = dump(b.store, keys), dc = dump(c.store, keys);
  BOOST_TEST(da == db);
  BOOST_TEST(da != dc);
  BOOST_TEST(da["pods"].size() == 40u);
}

BOOST_AUTO_TEST_CASE(pods_leave_a_seeds_vmis_as_they_were) {
  std::vector<std::string> keys = {"nodes", "virtualmachines.kubevirt.io", "virtualmachineinstances.kubevirt.io"};
  populated_store without{opts(8, 0)}, with{opts(8, 25)};
  auto a = dump(without.store, keys), b = dump(with.store, keys);
  for (const auto& k : keys)
    BOOST_TEST_CONTEXT(k << ": " << json::diff(a[k], b[k]).dump().substr(0, 400)) { BOOST_TEST(a[k] == b[k]); }
  BOOST_TEST(without.store.list(pods_key).items.empty());
  BOOST_TEST(!without.store.get("namespaces", "", "apps-a").has_value());
  // The VMIs' claims are the same ones; the pods' come on top.
  auto vmi_claims = [](populated_store& w) {
    std::set<std::string> out;
    for (const auto& c : w.store.list("persistentvolumeclaims").items)
      if (namespace_of(c).rfind("vms-", 0) == 0)
        out.insert(namespace_of(c) + "/" + name_of(c));
    return out;
  };
  BOOST_TEST(vmi_claims(without) == vmi_claims(with));
}

BOOST_AUTO_TEST_CASE(fractions_kinds_and_links) {
  auto o = opts(3, 60);
  o.pods_uncontrolled = 0.2;
  o.pods_misplaced = 0.25;
  o.pods_default_scheduler = 0.5;
  populated_store w{o};
  auto pods = pods_of(w);
  BOOST_REQUIRE_EQUAL(pods.size(), 60u);
  std::map<std::string, int> by_owner_kind;
  int misplaced = 0, default_scheduled = 0;
  for (const auto& p : pods) {
    auto owner = controller_of(p);
    auto kind = owner.is_object() ? owner["kind"].get<std::string>() : std::string{"none"};
    ++by_owner_kind[kind];
    BOOST_TEST(is_pod_ready(p));
    BOOST_TEST(pod_phase(p) == "Running");
    BOOST_TEST(pod_claims(p).size() == 2u);
    BOOST_TEST(!is_virt_launcher(p));
    if (p["spec"]["schedulerName"] == "default-scheduler")
      ++default_scheduled;
    else
      BOOST_TEST(p["spec"]["schedulerName"] == "stork");
    if (owner.is_object()) {
      // The owner exists with the uid the reference names.
      const char* key = kind == "StatefulSet" ? statefulsets_key
                        : kind == "ReplicaSet" ? replicasets_key
                        : kind == "DaemonSet"  ? daemonsets_key
                                               : jobs_key;
      auto stored = w.store.get(key, namespace_of(p), owner["name"].get<std::string>());
      BOOST_REQUIRE(stored);
      BOOST_TEST(uid_of(*stored) == owner["uid"].get<std::string>());
    }
    auto score = replica_score(w, p);
    int best = 0;
    for (const auto& [n, s] : score)
      best = std::max(best, s);
    auto here = score.find(p["spec"]["nodeName"].get<std::string>());
    if ((here == score.end() ? 0 : here->second) < best)
      ++misplaced;
  }
  BOOST_TEST(by_owner_kind["none"] + by_owner_kind["DaemonSet"] + by_owner_kind["Job"] == 12);
  BOOST_TEST(by_owner_kind["none"] == 4);
  BOOST_TEST(by_owner_kind["DaemonSet"] == 4);
  BOOST_TEST(by_owner_kind["StatefulSet"] > 0);
  BOOST_TEST(by_owner_kind["ReplicaSet"] > 0);
  BOOST_TEST(misplaced == 15);
  BOOST_TEST(default_scheduled > 10);
  BOOST_TEST(default_scheduled < 50);
  // One budget per StatefulSet and ReplicaSet, selecting exactly its pods.
  auto budgets = w.store.list(pdbs_key).items;
  auto sets = w.store.list(statefulsets_key).items.size() + w.store.list(replicasets_key).items.size();
  BOOST_TEST(budgets.size() == sets);
  for (const auto& b : budgets)
    BOOST_TEST(b["spec"]["maxUnavailable"] == 1);
}

BOOST_AUTO_TEST_CASE(blocked_and_overlapping_budgets) {
  auto o = opts(4, 20);
  o.pods_uncontrolled = 0;
  o.pdb_blocked = 1;
  o.pdb_overlap = 1;
  populated_store w{o};
  auto budgets = w.store.list(pdbs_key).items;
  auto sets = w.store.list(statefulsets_key).items.size() + w.store.list(replicasets_key).items.size();
  BOOST_TEST(budgets.size() == 2 * sets);
  int blocked = 0, quorum = 0;
  for (const auto& b : budgets) {
    if (b["spec"].contains("maxUnavailable") && b["spec"]["maxUnavailable"] == 0)
      ++blocked;
    if (b["spec"].contains("minAvailable"))
      ++quorum;
  }
  BOOST_TEST(blocked == static_cast<int>(sets));
  BOOST_TEST(quorum == static_cast<int>(sets));
}

BOOST_AUTO_TEST_CASE(csi_topology_pods_run_inside_their_volumes_affinity) {
  auto o = opts(2, 24, "csi-topology");
  o.pods_misplaced = 1; // impossible here: every node outside a replica set is ruled out
  populated_store w{o};
  for (const auto& p : pods_of(w)) {
    auto node = p["spec"]["nodeName"].get<std::string>();
    for (const auto& claim : pod_claims(p)) {
      auto pvc = w.store.get("persistentvolumeclaims", namespace_of(p), claim);
      auto pv = w.store.get("persistentvolumes", "", (*pvc)["spec"]["volumeName"].get<std::string>());
      auto values = (*pv)["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"];
      bool inside = std::find(values.begin(), values.end(), node) != values.end();
      BOOST_TEST(inside);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
