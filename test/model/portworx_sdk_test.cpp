// The OpenStorage SDK gateway's bulk answers (inspectwithfilters, nodes/filters) and when
// a gateway is too old for them.
#include <boost/test/unit_test.hpp>

#include "model/portworx_sdk.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(portworx_sdk)

BOOST_AUTO_TEST_CASE(inspect_with_filters_reads_every_volume) {
  auto vols = decode_sdk_volume_inspect_with_filters(R"({"volumes":[
    {"volume":{"id":"111","locator":{"name":"pv-a"},
               "replica_sets":[{"nodes":["px2","px1"]},{"nodes":["px3","px1"]}]},
     "name":"pv-a","labels":{"pvc":"a"}},
    {"volume":{"id":"222","locator":{"name":"pv-b"},"replicaSets":[{"nodes":["px9"]}]}}]})");
  BOOST_REQUIRE_MESSAGE(static_cast<bool>(vols), (vols ? std::string{} : vols.err().message));
  BOOST_REQUIRE_EQUAL(vols->size(), 2u);
  BOOST_CHECK_EQUAL((*vols)[0].id, "111");
  BOOST_CHECK_EQUAL((*vols)[0].name, "pv-a");
  BOOST_CHECK(((*vols)[0].replica_node_ids == std::vector<std::string>{"px1", "px2", "px3"}));
  BOOST_CHECK_EQUAL((*vols)[1].name, "pv-b"); // from the locator
  BOOST_CHECK(((*vols)[1].replica_node_ids == std::vector<std::string>{"px9"}));
}

BOOST_AUTO_TEST_CASE(an_empty_answer_is_no_volumes) {
  auto vols = decode_sdk_volume_inspect_with_filters("{}");
  BOOST_REQUIRE(vols);
  BOOST_CHECK(vols->empty());
}

BOOST_AUTO_TEST_CASE(a_malformed_item_fails_with_its_path) {
  auto missing = decode_sdk_volume_inspect_with_filters(R"({"volumes":[{"name":"x"}]})");
  BOOST_REQUIRE(!missing);
  BOOST_CHECK_EQUAL(missing.err().message, "volumes[0].volume: is required");
  auto wrong = decode_sdk_volume_inspect_with_filters(
    R"({"volumes":[{"volume":{"id":"1","replica_sets":[{"nodes":"px1"}]}}]})");
  BOOST_REQUIRE(!wrong);
  BOOST_CHECK_NE(wrong.err().message.find("volumes[0].volume.replica_sets[0].nodes"),
                 std::string::npos);
  BOOST_CHECK(!decode_sdk_volume_inspect_with_filters("{\"volumes\":["));
}

BOOST_AUTO_TEST_CASE(single_inspect_still_reads_as_before) {
  auto v = decode_sdk_volume_inspect(R"({"volume":{"id":"7","replica_sets":[{"nodes":["a"]}]},"name":"pv"})");
  BOOST_REQUIRE(v);
  BOOST_CHECK_EQUAL(v->id, "7");
  BOOST_CHECK_EQUAL(v->name, "pv");
  BOOST_CHECK(!decode_sdk_volume_inspect("{}"));
  BOOST_CHECK_EQUAL(decode_sdk_volume_inspect("{}").err().message, "volume: is required");
}

BOOST_AUTO_TEST_CASE(enumerate_with_filters_reads_whole_nodes) {
  auto nodes = decode_sdk_node_enumerate_with_filters(R"({"nodes":[
    {"id":"px1","scheduler_node_name":"n1","hostname":"h1","mgmt_ip":"10.0.0.1","data_ip":"10.1.0.1"},
    {"id":"px2","schedulerNodeName":"n2","mgmtIp":"10.0.0.2"}]})");
  BOOST_REQUIRE(nodes);
  BOOST_REQUIRE_EQUAL(nodes->size(), 2u);
  BOOST_CHECK_EQUAL((*nodes)[0].scheduler_node_name, "n1");
  BOOST_CHECK_EQUAL((*nodes)[0].data_ip, "10.1.0.1");
  BOOST_CHECK_EQUAL((*nodes)[1].scheduler_node_name, "n2");
  BOOST_CHECK_EQUAL((*nodes)[1].mgmt_ip, "10.0.0.2");
  auto no_id = decode_sdk_node_enumerate_with_filters(R"({"nodes":[{"hostname":"h"}]})");
  BOOST_REQUIRE(!no_id);
  BOOST_CHECK_EQUAL(no_id.err().message, "nodes[0].id: is required");
  BOOST_CHECK(decode_sdk_node_enumerate_with_filters("{}")->empty());
}

BOOST_AUTO_TEST_CASE(old_gateways_answer_404_or_501) {
  BOOST_CHECK(sdk_bulk_unsupported(404, false));
  BOOST_CHECK(sdk_bulk_unsupported(501, false));
  for (int status : {200, 400, 401, 403, 429, 500, 503})
    BOOST_CHECK(!sdk_bulk_unsupported(status, false));
  BOOST_CHECK(!sdk_bulk_unsupported(404, true));
}

BOOST_AUTO_TEST_SUITE_END()
