// Unit tests of a namespace's deletion: Terminating, its content deleted, then gone.
#include <boost/test/unit_test.hpp>

#include "sim/builtin_strategies.hpp"
#include "sim/discovery.hpp"
#include "sim/namespace_deletion.hpp"

using schedopt::sim::delete_namespace;
using schedopt::sim::json;
using schedopt::sim::object_store;
using schedopt::sim::prepare_for_create;

namespace {

struct namespace_fixture {
  object_store store{100};
  namespace_fixture() {
    for (const auto& r : schedopt::sim::builtin_resources())
      if (r.type.key() == "namespaces" || r.type.key() == "configmaps")
        store.register_type(r.type);
  }
  void create_namespace(const std::string& name) {
    json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
    for (const auto& r : schedopt::sim::builtin_resources())
      if (r.type.key() == "namespaces")
        prepare_for_create(r.type, ns);
    BOOST_REQUIRE(store.create("namespaces", ns));
  }
  void create_config_map(const std::string& ns, const std::string& name, json finalizers = json::array()) {
    json cm = {{"apiVersion", "v1"},
               {"kind", "ConfigMap"},
               {"metadata", {{"name", name}, {"namespace", ns}, {"finalizers", finalizers}}}};
    BOOST_REQUIRE(store.create("configmaps", cm));
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(namespace_deletion, namespace_fixture)

BOOST_AUTO_TEST_CASE(a_namespace_goes_with_its_content) {
  create_namespace("doomed");
  create_namespace("kept");
  create_config_map("doomed", "a");
  create_config_map("kept", "b");
  auto answer = delete_namespace(store, "doomed");
  BOOST_REQUIRE(answer.has_value());
  BOOST_TEST((*answer)["status"]["phase"] == "Terminating");
  BOOST_TEST((*answer)["metadata"].contains("deletionTimestamp"));
  BOOST_TEST(!(*answer)["metadata"].contains("deletionGracePeriodSeconds"));
  BOOST_TEST(!store.get("namespaces", "", "doomed").has_value());
  BOOST_TEST(!store.get("configmaps", "doomed", "a").has_value());
  BOOST_TEST(store.get("configmaps", "kept", "b").has_value());
}

BOOST_AUTO_TEST_CASE(content_kept_by_a_finalizer_keeps_the_namespace_terminating) {
  create_namespace("held");
  create_config_map("held", "c", json::array({"example.io/hold"}));
  BOOST_REQUIRE(delete_namespace(store, "held").has_value());
  auto ns = store.get("namespaces", "", "held");
  BOOST_REQUIRE(ns.has_value());
  BOOST_TEST((*ns)["status"]["phase"] == "Terminating");
  // The finalizer released, a later delete finds the namespace empty and it goes.
  store.modify("configmaps", "held", "c", [](json& cm) {
    cm["metadata"]["finalizers"] = json::array();
    return true;
  });
  BOOST_TEST(!store.get("configmaps", "held", "c").has_value());
  BOOST_REQUIRE(delete_namespace(store, "held").has_value());
  BOOST_TEST(!store.get("namespaces", "", "held").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
