// Unit tests of the PVC protection finalizer: added on create, taken off, and the claim
// gone, only once no scheduled pod names the claim.
#include <boost/test/unit_test.hpp>

#include "sim/builtin_strategies.hpp"
#include "sim/discovery.hpp"
#include "sim/pvc_protection.hpp"

using schedopt::sim::json;
using schedopt::sim::object_store;

namespace {

struct claims_fixture {
  object_store store{100};
  schedopt::sim::pvc_protection protection{store};
  claims_fixture() {
    for (const auto& r : schedopt::sim::builtin_resources())
      if (r.type.key() == "persistentvolumeclaims" || r.type.key() == "pods")
        store.register_type(r.type);
  }
  void create_claim(const std::string& name) {
    json claim = {{"apiVersion", "v1"},
                  {"kind", "PersistentVolumeClaim"},
                  {"metadata", {{"name", name}, {"namespace", "ns"}}},
                  {"spec", {{"accessModes", {"ReadWriteOnce"}}}}};
    for (const auto& r : schedopt::sim::builtin_resources())
      if (r.type.key() == "persistentvolumeclaims") {
        schedopt::sim::apply_decode_defaults(r.type, claim);
        schedopt::sim::prepare_for_create(r.type, claim);
      }
    BOOST_REQUIRE(store.create("persistentvolumeclaims", claim));
  }
  void create_pod(const std::string& name, const std::string& claim, const std::string& node) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "ns"}}},
                {"spec",
                 {{"nodeName", node},
                  {"containers", {{{"name", "c"}, {"image", "i"}}}},
                  {"volumes", {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", claim}}}}}}}}};
    BOOST_REQUIRE(store.create("pods", pod));
  }
  bool exists(const std::string& claim) { return store.get("persistentvolumeclaims", "ns", claim).has_value(); }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(pvc_protection_suite, claims_fixture)

BOOST_AUTO_TEST_CASE(a_new_claim_is_protected_pending_and_filesystem) {
  create_claim("data");
  auto claim = store.get("persistentvolumeclaims", "ns", "data");
  BOOST_REQUIRE(claim.has_value());
  BOOST_TEST((*claim)["metadata"]["finalizers"] == json::array({"kubernetes.io/pvc-protection"}));
  BOOST_TEST((*claim)["spec"]["volumeMode"] == "Filesystem");
  BOOST_TEST((*claim)["status"]["phase"] == "Pending");
}

BOOST_AUTO_TEST_CASE(a_claim_in_use_stays_until_its_pod_goes) {
  create_claim("data");
  create_pod("user", "data", "node-1");
  BOOST_REQUIRE(store.remove("persistentvolumeclaims", "ns", "data"));
  protection.tick();
  BOOST_TEST(exists("data")); // Terminating while the pod runs
  BOOST_REQUIRE(store.remove("pods", "ns", "user"));
  protection.tick();
  BOOST_TEST(!exists("data"));
}

BOOST_AUTO_TEST_CASE(an_unscheduled_pod_does_not_hold_a_claim) {
  create_claim("data");
  create_pod("waiting", "data", "");
  BOOST_REQUIRE(store.remove("persistentvolumeclaims", "ns", "data"));
  protection.tick();
  BOOST_TEST(!exists("data"));
}

BOOST_AUTO_TEST_CASE(a_claim_not_being_deleted_keeps_its_finalizer) {
  create_claim("data");
  protection.tick();
  auto claim = store.get("persistentvolumeclaims", "ns", "data");
  BOOST_REQUIRE(claim.has_value());
  BOOST_TEST((*claim)["metadata"]["finalizers"].size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
