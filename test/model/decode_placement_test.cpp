// Decoding what docs/design.md §2.5 needs: a VMI's nodeSelector, required node affinity,
// tolerations and requests; a node's labels, taints and allocatable resources.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(decode_placement)

BOOST_AUTO_TEST_CASE(vmi_constraints_and_requests) {
  auto vmi = decode_vmi(R"({
    "metadata": {"name": "vm", "namespace": "ns"},
    "spec": {
      "nodeSelector": {"kubernetes.io/arch": "amd64"},
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [
          {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]},
                                {"key": "gpu", "operator": "DoesNotExist"}]},
          {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n9"]}]}
        ]},
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}},
      "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "db",
                       "effect": "NoSchedule"},
                      {"operator": "Exists"}],
      "domain": {"resources": {"requests": {"cpu": "1500m", "memory": "8Gi"},
                               "limits": {"memory": "16Gi"}}}
    },
    "status": {"phase": "Running", "nodeName": "n1"}})");
  BOOST_REQUIRE(vmi);
  BOOST_CHECK(constraints_of(*vmi).node_selector == (string_map{{"kubernetes.io/arch", "amd64"}}));
  BOOST_REQUIRE_EQUAL(constraints_of(*vmi).required_node_affinity.size(), 2u);
  const auto& t0 = constraints_of(*vmi).required_node_affinity[0];
  BOOST_REQUIRE_EQUAL(t0.match_expressions.size(), 2u);
  BOOST_CHECK_EQUAL(t0.match_expressions[0].key, "zone");
  BOOST_CHECK_EQUAL(t0.match_expressions[0].op, "In");
  BOOST_CHECK(t0.match_expressions[0].values == (std::vector<std::string>{"a", "b"}));
  BOOST_CHECK_EQUAL(t0.match_expressions[1].op, "DoesNotExist");
  BOOST_CHECK(t0.match_fields.empty());
  const auto& t1 = constraints_of(*vmi).required_node_affinity[1];
  BOOST_REQUIRE_EQUAL(t1.match_fields.size(), 1u);
  BOOST_CHECK_EQUAL(t1.match_fields[0].key, "metadata.name");
  BOOST_REQUIRE_EQUAL(constraints_of(*vmi).tolerations.size(), 2u);
  BOOST_CHECK_EQUAL(constraints_of(*vmi).tolerations[0].key, "dedicated");
  BOOST_CHECK_EQUAL(constraints_of(*vmi).tolerations[0].value, "db");
  BOOST_CHECK_EQUAL(constraints_of(*vmi).tolerations[0].effect, "NoSchedule");
  BOOST_CHECK_EQUAL(constraints_of(*vmi).tolerations[1].op, "Exists");
  BOOST_CHECK(vmi->requests.cpu_millis == int64_t{1500});
  BOOST_CHECK(vmi->requests.memory_bytes == int64_t{8} << 30);
}

BOOST_AUTO_TEST_CASE(vmi_without_constraints_and_numeric_quantities) {
  auto plain = decode_vmi(R"({"metadata": {"name": "vm"}, "spec": {}})");
  BOOST_REQUIRE(plain);
  BOOST_CHECK(constraints_of(*plain).node_selector.empty());
  BOOST_CHECK(constraints_of(*plain).required_node_affinity.empty());
  BOOST_CHECK(constraints_of(*plain).tolerations.empty());
  BOOST_CHECK(!plain->constraints); // nothing boxed for a VMI that says nothing
  BOOST_CHECK(!plain->requests.cpu_millis && !plain->requests.memory_bytes);

  auto numeric = decode_vmi(R"({"metadata": {"name": "vm"},
    "spec": {"domain": {"resources": {"requests": {"cpu": 2, "memory": 1073741824}}}}})");
  BOOST_REQUIRE(numeric);
  BOOST_CHECK(numeric->requests.cpu_millis == int64_t{2000});
  BOOST_CHECK(numeric->requests.memory_bytes == int64_t{1} << 30);

  auto junk = decode_vmi(R"({"metadata": {"name": "vm"},
    "spec": {"domain": {"resources": {"requests": {"cpu": "lots", "memory": true}}}}})");
  BOOST_REQUIRE(junk); // no quantity: not checked, never a decode failure
  BOOST_CHECK(!junk->requests.cpu_millis && !junk->requests.memory_bytes);
}

BOOST_AUTO_TEST_CASE(node_labels_taints_and_allocatable) {
  auto n = decode_node(R"({
    "metadata": {"name": "n1", "labels": {"kubernetes.io/arch": "amd64"}},
    "spec": {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"},
                        {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                         "timeAdded": "2026-01-01T00:00:00Z"}]},
    "status": {"allocatable": {"cpu": "31500m", "memory": "131898060Ki", "pods": "250"},
               "conditions": [{"type": "Ready", "status": "True"}]}})");
  BOOST_REQUIRE(n);
  BOOST_CHECK_EQUAL(n->metadata.labels.at("kubernetes.io/arch"), "amd64");
  BOOST_REQUIRE_EQUAL(n->taints.size(), 2u);
  BOOST_CHECK_EQUAL(n->taints[0].key, "dedicated");
  BOOST_CHECK_EQUAL(n->taints[0].value, "db");
  BOOST_CHECK_EQUAL(n->taints[0].effect, "NoSchedule");
  BOOST_CHECK(n->taints[1].value.empty());
  BOOST_CHECK(n->allocatable.cpu_millis == int64_t{31500});
  BOOST_CHECK(n->allocatable.memory_bytes == int64_t{131898060} * 1024);

  auto bare = decode_node(R"({"metadata": {"name": "n2"}})");
  BOOST_REQUIRE(bare);
  BOOST_CHECK(bare->taints.empty());
  BOOST_CHECK(!bare->allocatable.cpu_millis && !bare->allocatable.memory_bytes);
}

BOOST_AUTO_TEST_SUITE_END()
