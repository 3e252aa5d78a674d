// The bulk answer's hand-laid text against the JSON tree it replaces: same bytes, and
// strings that need escaping stay valid JSON.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "sim/portworx_volume_json.hpp"

using namespace schedopt::sim;
using json = nlohmann::json;

namespace {

storage_volume volume_with(std::string ns, std::string pvc) {
  storage_volume v;
  v.id = "810377853671725377";
  v.name = "pvc-01a4e5c1";
  v.pvc_namespace = std::move(ns);
  v.pvc_name = std::move(pvc);
  v.driver = portworx_csi_driver;
  v.replica_nodes = {"node-01", "node-gone"};
  v.size_bytes = 21474836480;
  return v;
}

/// The answer as the gateway used to build it, one tree per volume.
json tree_of(const storage_volume& v, const px_node_directory& nodes,
             const std::optional<std::string>& extra) {
  json ids = json::array(), pools = json::array();
  for (auto& name : v.replica_nodes) {
    auto n = nodes.find(name);
    ids.push_back(n != nodes.end() ? n->second.px_id : name);
    pools.push_back(n != nodes.end() ? n->second.pool_uuid : "");
  }
  if (extra) {
    ids.push_back(*extra);
    pools.push_back("");
  }
  json labels = {{"namespace", v.pvc_namespace}, {"pvc", v.pvc_name}};
  json volume = {{"id", v.id},
                 {"locator", {{"name", v.name}, {"volume_labels", labels}}},
                 {"ctime", "2026-01-01T00:00:00Z"},
                 {"spec",
                  {{"ha_level", std::to_string(v.replica_nodes.size())},
                   {"size", std::to_string(v.size_bytes)},
                   {"format", "FS_TYPE_EXT4"},
                   {"block_size", "4096"},
                   {"cos", "HIGH"},
                   {"sharedv4", true},
                   {"volume_labels", labels}}},
                 {"usage", "1073741824"},
                 {"format", "FS_TYPE_EXT4"},
                 {"state", "VOLUME_STATE_ATTACHED"},
                 {"status", "VOLUME_STATUS_UP"},
                 {"replica_sets", json::array({{{"nodes", ids}, {"pool_uuids", pools}}})},
                 {"attached_state", "ATTACH_STATE_INTERNAL_SWITCH"}};
  return {{"volume", volume}, {"name", v.name}, {"labels", labels}};
}

const px_node_directory nodes{{"node-01", {"b8f2411d", "2353"}}};

} // namespace

BOOST_AUTO_TEST_SUITE(portworx_volume_json)

BOOST_AUTO_TEST_CASE(the_text_is_the_bytes_the_tree_dumps) {
  for (auto extra : {std::optional<std::string>{}, std::optional<std::string>{"px-node-unknown"}}) {
    auto v = volume_with("vms-a", "vm-00001-rootdisk");
    std::string text;
    append_volume_inspect_json(text, v, nodes, extra);
    BOOST_CHECK_EQUAL(text, tree_of(v, nodes, extra).dump());
  }
}

BOOST_AUTO_TEST_CASE(strings_are_escaped) {
  auto v = volume_with("ns\"quoted\\", "line\nbreak\x01");
  std::string text;
  append_volume_inspect_json(text, v, nodes);
  auto parsed = json::parse(text);
  BOOST_CHECK_EQUAL(parsed["labels"]["namespace"], "ns\"quoted\\");
  BOOST_CHECK_EQUAL(parsed["volume"]["spec"]["volume_labels"]["pvc"], "line\nbreak\x01");
  BOOST_CHECK_EQUAL(text, tree_of(v, nodes, std::nullopt).dump());
}

BOOST_AUTO_TEST_CASE(a_volume_without_replicas_has_empty_sets) {
  auto v = volume_with("a", "b");
  v.replica_nodes.clear();
  std::string text;
  append_volume_inspect_json(text, v, nodes);
  BOOST_CHECK_EQUAL(text, tree_of(v, nodes, std::nullopt).dump());
}

BOOST_AUTO_TEST_SUITE_END()
