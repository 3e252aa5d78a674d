// The pod kind's decoders (pod_decode.hpp) on objects shaped as kube-apiserver serves
// them, its label selectors, effective requests, owners and budgets (pod_objects.hpp).
#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/pod_decode.hpp"

using namespace schedopt;
using namespace schedopt::pod_hyperconvergence;

namespace {

// A StatefulSet pod as the API server serves it, trimmed of fields schedopt ignores
// but keeping a few of them to show they are skipped.
const char* stateful_pod = R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": "db-0", "namespace": "shop", "uid": "6f1c2a3e-0000-4000-8000-000000000001",
    "resourceVersion": "4711", "generateName": "db-",
    "creationTimestamp": "2026-11-30T11:00:00Z",
    "labels": {"app": "db", "statefulset.kubernetes.io/pod-name": "db-0"},
    "annotations": {"note": "x"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db",
                         "uid": "uid-db", "controller": true, "blockOwnerDeletion": true}]
  },
  "spec": {
    "nodeName": "n1", "schedulerName": "stork",
    "volumes": [
      {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}},
      {"name": "config", "configMap": {"name": "db-config"}},
      {"name": "kube-api-access", "projected": {"sources": []}}
    ],
    "nodeSelector": {"disk": "ssd"},
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
      "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "zone", "operator": "In", "values": ["a", "b"]}]}]}}},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "db",
                     "effect": "NoSchedule"}],
    "initContainers": [
      {"name": "init", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}},
      {"name": "proxy", "restartPolicy": "Always",
       "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}
    ],
    "containers": [
      {"name": "db", "image": "postgres", "resources": {"requests": {"cpu": "500m", "memory": "2Gi"},
                                                       "limits": {"cpu": "4"}}},
      {"name": "metrics", "resources": {"requests": {"cpu": 0.25}}}
    ],
    "overhead": {"memory": "10Mi"}
  },
  "status": {
    "phase": "Running", "podIP": "10.0.0.7",
    "conditions": [
      {"type": "PodScheduled", "status": "True"},
      {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-30T11:01:00Z"}
    ]
  }
})";

} // namespace

BOOST_AUTO_TEST_SUITE(pod_decode)

BOOST_AUTO_TEST_CASE(a_stateful_pod_reads_every_field_the_kind_uses) {
  auto p = decode_pod(stateful_pod);
  BOOST_REQUIRE_MESSAGE(p, (p ? "" : p.err().message));
  BOOST_CHECK_EQUAL(p->metadata.name, "db-0");
  BOOST_CHECK_EQUAL(p->metadata.namespace_, "shop");
  BOOST_CHECK_EQUAL(p->metadata.uid, "6f1c2a3e-0000-4000-8000-000000000001");
  BOOST_CHECK_EQUAL(p->metadata.creation_timestamp, "2026-11-30T11:00:00Z");
  BOOST_CHECK(!p->metadata.deletion_timestamp);
  BOOST_CHECK_EQUAL(p->metadata.labels.at("app"), "db");
  BOOST_CHECK_EQUAL(p->metadata.annotations.at("note"), "x");
  BOOST_CHECK_EQUAL(p->node_name, "n1");
  BOOST_CHECK_EQUAL(p->scheduler_name, "stork");
  BOOST_REQUIRE_EQUAL(p->claim_names.size(), 1u); // configMap and projected: no claim
  BOOST_CHECK_EQUAL(p->claim_names[0], "data-db-0");
  BOOST_CHECK_EQUAL(p->constraints.node_selector.at("disk"), "ssd");
  BOOST_REQUIRE_EQUAL(p->constraints.required_node_affinity.size(), 1u);
  BOOST_CHECK_EQUAL(p->constraints.required_node_affinity[0].match_expressions[0].values.size(), 2u);
  BOOST_REQUIRE_EQUAL(p->constraints.tolerations.size(), 1u);
  BOOST_CHECK_EQUAL(p->constraints.tolerations[0].effect, "NoSchedule");
  // Containers 500m + 250m and the sidecar 100m ask 850m; the init container, which
  // runs before the sidecar starts, asks 2 CPUs alone: that is the floor.
  BOOST_CHECK_EQUAL(*p->requests.cpu_millis, 2000);
  // Memory: containers 2Gi + sidecar 64Mi beat init's 1Gi; plus 10Mi overhead.
  BOOST_CHECK_EQUAL(*p->requests.memory_bytes, (2048 + 64 + 10) * 1024LL * 1024);
  BOOST_CHECK_EQUAL(p->phase, "Running");
  BOOST_CHECK(is_ready(*p));
  auto w = workload_of(*p);
  BOOST_REQUIRE(w);
  BOOST_CHECK(w->kind == workload_kind::stateful_set);
  BOOST_CHECK_EQUAL(w->name, "db");
  BOOST_CHECK_EQUAL(w->uid, "uid-db");
  BOOST_CHECK_EQUAL(describe(*w), "StatefulSet shop/db");
}

BOOST_AUTO_TEST_CASE(a_field_of_the_wrong_type_names_its_path) {
  auto p = decode_pod(R"({"metadata":{"name":"a"},"spec":{"nodeName":7}})");
  BOOST_REQUIRE(!p);
  BOOST_CHECK_EQUAL(p.err().message, "spec.nodeName: expected string, got number");
  auto q = decode_pod(R"({"metadata":{"name":"a"},"spec":{"volumes":[{"persistentVolumeClaim":{"claimName":1}}]}})");
  BOOST_REQUIRE(!q);
  BOOST_CHECK_EQUAL(q.err().message,
                    "spec.volumes[0].persistentVolumeClaim.claimName: expected string, got number");
  auto r = decode_pod(R"({"metadata":{"namespace":"a"}})");
  BOOST_REQUIRE(!r);
  BOOST_CHECK_EQUAL(r.err().message, "metadata.name: is required");
  BOOST_CHECK(r.err().code == ec::missing_field);
  auto s = decode_pod("{");
  BOOST_REQUIRE(!s);
  BOOST_CHECK(s.err().code == ec::parse_error);
}

BOOST_AUTO_TEST_CASE(null_and_absent_read_alike) {
  auto p = decode_pod(R"({"metadata":{"name":"a","labels":null,"deletionTimestamp":null},
                          "spec":{"schedulerName":null,"volumes":null},"status":null})");
  BOOST_REQUIRE(p);
  BOOST_CHECK(p->scheduler_name.empty());
  BOOST_CHECK_EQUAL(scheduler_of(*p), "default-scheduler");
  BOOST_CHECK(!p->metadata.deletion_timestamp);
  BOOST_CHECK(!p->requests.cpu_millis && !p->requests.memory_bytes);
  BOOST_CHECK(!is_ready(*p));
}

BOOST_AUTO_TEST_CASE(a_terminating_pod_keeps_its_deletion_timestamp) {
  auto p = decode_pod(R"({"metadata":{"name":"a","deletionTimestamp":"2026-11-30T12:00:00Z"}})");
  BOOST_REQUIRE(p);
  BOOST_REQUIRE(p->metadata.deletion_timestamp);
  BOOST_CHECK_EQUAL(*p->metadata.deletion_timestamp, "2026-11-30T12:00:00Z");
}

BOOST_AUTO_TEST_CASE(requests_follow_the_schedulers_pod_requests) {
  resource_list none;
  auto cpu = [](int64_t m) { resource_list r; r.cpu_millis = m; return r; };
  // Plain containers add up.
  auto r = effective_requests({cpu(100), cpu(200)}, {}, none, none);
  BOOST_CHECK_EQUAL(*r.cpu_millis, 300);
  BOOST_CHECK(!r.memory_bytes); // nothing asks memory: unset, not zero
  // A plain init container is a floor.
  r = effective_requests({cpu(100)}, {{cpu(500), false}}, none, none);
  BOOST_CHECK_EQUAL(*r.cpu_millis, 500);
  // A sidecar adds to the sum and to every later init container.
  r = effective_requests({cpu(100)}, {{cpu(50), true}, {cpu(400), false}}, none, none);
  BOOST_CHECK_EQUAL(*r.cpu_millis, 450); // max(100 + 50, 50 + 400)
  r = effective_requests({cpu(1000)}, {{cpu(50), true}, {cpu(400), false}}, none, none);
  BOOST_CHECK_EQUAL(*r.cpu_millis, 1050);
  // Pod-level requests replace the containers', overhead comes on top.
  r = effective_requests({cpu(1000)}, {}, cpu(300), cpu(20));
  BOOST_CHECK_EQUAL(*r.cpu_millis, 320);
}

BOOST_AUTO_TEST_CASE(owners_the_kind_can_predict_are_statefulsets_and_replicasets) {
  auto with_owner = [](const char* api, const char* kind, bool controller) {
    pod p;
    p.metadata.namespace_ = "ns";
    owner_reference o;
    o.api_version = api;
    o.kind = kind;
    o.name = "x";
    o.controller = controller;
    p.metadata.owner_references.push_back(o);
    return p;
  };
  BOOST_CHECK(workload_of(with_owner("apps/v1", "ReplicaSet", true))->kind
              == workload_kind::replica_set);
  BOOST_CHECK(!workload_of(with_owner("apps/v1", "DaemonSet", true)));
  BOOST_CHECK(!workload_of(with_owner("batch/v1", "Job", true)));
  BOOST_CHECK(!workload_of(with_owner("apps/v1", "StatefulSet", false))); // not its controller
  BOOST_CHECK(!workload_of(with_owner("example.com/v1", "StatefulSet", true)));
  BOOST_CHECK(!workload_of(pod{}));
}

BOOST_AUTO_TEST_CASE(statefulsets_and_replicasets_default_replicas_to_one) {
  auto s = decode_stateful_set(R"({"metadata":{"name":"db","namespace":"ns",
      "annotations":{"schedopt.libopenstorage.org/last-eviction-time":"2026-11-30T11:00:00Z"}},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"db"}}},"status":{"readyReplicas":2}})");
  BOOST_REQUIRE(s);
  BOOST_CHECK_EQUAL(s->replicas, 3);
  BOOST_CHECK_EQUAL(s->ready_replicas, 2);
  BOOST_CHECK(s->selector.present);
  BOOST_CHECK_EQUAL(s->selector.match_labels.at("app"), "db");
  BOOST_CHECK_EQUAL(s->metadata.annotations.size(), 1u);
  auto rs = decode_replica_set(R"({"metadata":{"name":"web-7d9f","namespace":"ns",
      "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","controller":true}]},
      "spec":{"selector":{"matchLabels":{"app":"web"}}}})");
  BOOST_REQUIRE(rs);
  BOOST_CHECK_EQUAL(rs->replicas, 1);
  BOOST_CHECK_EQUAL(controller_of(rs->metadata)->kind, "Deployment");
  auto zero = decode_replica_set(R"({"metadata":{"name":"old"},"spec":{"replicas":0}})");
  BOOST_REQUIRE(zero);
  BOOST_CHECK_EQUAL(zero->replicas, 0);
  auto bad = decode_stateful_set(R"({"metadata":{"name":"db"},"spec":{"replicas":"3"}})");
  BOOST_REQUIRE(!bad);
  BOOST_CHECK_EQUAL(bad.err().message, "spec.replicas: expected integer, got string");
}

BOOST_AUTO_TEST_CASE(a_budget_reads_int_or_string_and_its_status) {
  auto b = decode_pod_disruption_budget(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"db-pdb","namespace":"ns","generation":2},
      "spec":{"minAvailable":2,"selector":{"matchExpressions":[{"key":"app","operator":"In","values":["db"]}]},
              "unhealthyPodEvictionPolicy":"AlwaysAllow"},
      "status":{"observedGeneration":2,"disruptionsAllowed":0,"currentHealthy":2,
                "desiredHealthy":2,"expectedPods":3}})");
  BOOST_REQUIRE_MESSAGE(b, (b ? "" : b.err().message));
  BOOST_CHECK_EQUAL(b->min_available, "2");
  BOOST_CHECK(b->max_unavailable.empty());
  BOOST_CHECK_EQUAL(b->unhealthy_pod_eviction_policy, "AlwaysAllow");
  BOOST_CHECK_EQUAL(b->disruptions_allowed, 0);
  BOOST_CHECK_EQUAL(b->current_healthy, 2);
  BOOST_CHECK_EQUAL(b->desired_healthy, 2);
  BOOST_CHECK_EQUAL(b->expected_pods, 3);
  BOOST_CHECK_EQUAL(b->observed_generation, 2);
  auto pct = decode_pod_disruption_budget(R"({"metadata":{"name":"p"},"spec":{"maxUnavailable":"25%"}})");
  BOOST_REQUIRE(pct);
  BOOST_CHECK_EQUAL(pct->max_unavailable, "25%");
  BOOST_CHECK(!pct->selector.present);
}

BOOST_AUTO_TEST_CASE(label_selectors_select_as_apimachinery_does) {
  string_map labels{{"app", "db"}, {"tier", "data"}};
  label_selector nil;
  BOOST_CHECK(!selects(nil, labels)); // nil: nothing
  label_selector empty;
  empty.present = true;
  BOOST_CHECK(selects(empty, labels)); // {}: everything
  label_selector s;
  s.present = true;
  s.match_labels = {{"app", "db"}};
  BOOST_CHECK(selects(s, labels));
  s.match_expressions.push_back({"tier", "NotIn", {"web"}});
  s.match_expressions.push_back({"canary", "DoesNotExist", {}});
  BOOST_CHECK(selects(s, labels));
  s.match_expressions.push_back({"tier", "In", {"web"}});
  BOOST_CHECK(!selects(s, labels));
  label_selector invalid;
  invalid.present = true;
  invalid.match_expressions.push_back({"app", "In", {}}); // In without values
  BOOST_CHECK(!selects(invalid, labels));
  label_selector unknown_op;
  unknown_op.present = true;
  unknown_op.match_expressions.push_back({"app", "Gt", {"1"}});
  BOOST_CHECK(!selects(unknown_op, labels));
}

BOOST_AUTO_TEST_CASE(a_budget_covers_pods_of_its_namespace_its_selector_selects) {
  pod p;
  p.metadata.namespace_ = "ns";
  p.metadata.labels = {{"app", "db"}};
  pod_disruption_budget match, other_ns, empty, other_app;
  match.metadata.namespace_ = "ns";
  match.selector.present = true;
  match.selector.match_labels = {{"app", "db"}};
  other_ns = match;
  other_ns.metadata.namespace_ = "other";
  empty.metadata.namespace_ = "ns";
  empty.selector.present = true; // {} selects nothing here (eviction.go)
  other_app = match;
  other_app.selector.match_labels = {{"app", "web"}};
  auto covering = covering_budgets(p, {match, other_ns, empty, other_app, match});
  BOOST_CHECK_EQUAL(covering.size(), 2u);
}

BOOST_AUTO_TEST_SUITE_END()
