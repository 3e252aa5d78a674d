// Longhorn replica CRs decode as Longhorn v1.6 serves them; the index counts running
// replicas only.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/longhorn.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(longhorn_model)

BOOST_AUTO_TEST_CASE(replica_cr_decodes_volume_node_and_state) {
  auto r = decode<longhorn_replica>(R"({
    "apiVersion": "longhorn.io/v1beta2", "kind": "Replica",
    "metadata": {"name": "pvc-1-r-6f1c2a3b", "namespace": "longhorn-system", "uid": "u1",
                 "resourceVersion": "812", "labels": {"longhornvolume": "pvc-1",
                 "longhornnode": "node-2"}, "ownerReferences": [{"apiVersion": "longhorn.io/v1beta2",
                 "kind": "Volume", "name": "pvc-1", "uid": "v1"}]},
    "spec": {"volumeName": "pvc-1", "nodeID": "node-2", "diskID": "d1", "engineName": "pvc-1-e-0",
             "desireState": "running", "volumeSize": "21474836480", "active": true},
    "status": {"currentState": "running", "instanceManagerName": "instance-manager-abc",
               "ip": "10.42.0.12", "port": 10010, "started": true}})");
  BOOST_REQUIRE(r);
  BOOST_CHECK_EQUAL(r->metadata.name, "pvc-1-r-6f1c2a3b");
  BOOST_CHECK_EQUAL(r->metadata.namespace_, "longhorn-system");
  BOOST_CHECK_EQUAL(r->volume_name, "pvc-1");
  BOOST_CHECK_EQUAL(r->node_id, "node-2");
  BOOST_CHECK_EQUAL(r->current_state, "running");
}

BOOST_AUTO_TEST_CASE(replica_without_status_and_bad_field) {
  auto fresh = decode<longhorn_replica>(
    R"({"metadata":{"name":"r"},"spec":{"volumeName":"v","nodeID":""}})");
  BOOST_REQUIRE(fresh);
  BOOST_CHECK(fresh->current_state.empty());
  auto bad = decode<longhorn_replica>(R"({"metadata":{"name":"r"},"spec":{"nodeID":7}})");
  BOOST_REQUIRE(!bad);
  BOOST_CHECK_NE(bad.err().message.find("spec.nodeID"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(index_answers_running_nodes_per_volume_and_follows_changes) {
  auto make = [](std::string volume, std::string node, std::string state) {
    longhorn_replica r;
    r.volume_name = std::move(volume);
    r.node_id = std::move(node);
    r.current_state = std::move(state);
    return r;
  };
  longhorn_replica_index index;
  index.upsert("a", make("v", "n2", "running"));
  index.upsert("b", make("v", "n1", "running"));
  index.upsert("c", make("v", "n2", "running")); // a second replica on the same node
  index.upsert("d", make("v", "n3", "starting"));
  index.upsert("e", make("w", "n1", "stopped"));
  index.upsert("f", make("x", "", "running")); // not scheduled yet
  BOOST_CHECK((index.running_nodes("v") == std::vector<std::string>{"n1", "n2"}));
  BOOST_CHECK(index.running_nodes("w").empty());
  BOOST_CHECK(index.running_nodes("x").empty());
  BOOST_CHECK(index.running_nodes("nope").empty());
  BOOST_CHECK_EQUAL(index.replica_objects("v"), 4u);
  BOOST_CHECK_EQUAL(index.replica_objects("w"), 1u);
  BOOST_CHECK_EQUAL(index.replica_objects("nope"), 0u);

  index.upsert("d", make("v", "n3", "running"));  // rebuilt
  index.upsert("b", make("v", "n1", "stopped"));  // retired
  BOOST_CHECK((index.running_nodes("v") == std::vector<std::string>{"n2", "n3"}));
  index.upsert("e", make("v", "n4", "running"));  // same key, another volume: moves
  BOOST_CHECK(index.running_nodes("w").empty());
  BOOST_CHECK_EQUAL(index.replica_objects("w"), 0u);
  BOOST_CHECK((index.running_nodes("v") == std::vector<std::string>{"n2", "n3", "n4"}));
  index.erase("a");
  index.erase("c");
  index.erase("zzz"); // unknown: nothing
  BOOST_CHECK((index.running_nodes("v") == std::vector<std::string>{"n3", "n4"}));
  BOOST_CHECK_EQUAL(index.size(), 4u);
}

BOOST_AUTO_TEST_SUITE_END()
