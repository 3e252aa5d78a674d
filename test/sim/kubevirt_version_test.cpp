// --kubevirt-version: the release parsed, and the VMIM schema each release serves
// (addedNodeSelector pruned before 1.6, priority before 1.7, as the older structural
// schemas drop them).
#include <boost/test/unit_test.hpp>

#include "crd_schema_lookup.hpp"
#include "sim/kubevirt_version.hpp"
#include "sim/structural_schema.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using json = nlohmann::json;

namespace {

crd_schema vmim_schema(kubevirt_version v) {
  return testing::crd_schema_of_kind(std::string{SCHEDOPT_SOURCE_DIR} + "/sim/crds", "VirtualMachineInstanceMigration",
                                     [v](json& crd) { shape_vmim_crd(crd, v); });
}

json pinned_vmim() {
  return {{"apiVersion", "kubevirt.io/v1"},
          {"kind", "VirtualMachineInstanceMigration"},
          {"metadata", {{"name", "m"}, {"namespace", "default"}}},
          {"spec", {{"vmiName", "vm-1"}, {"addedNodeSelector", {{"kubernetes.io/hostname", "node-02"}}}}}};
}

} // namespace

BOOST_AUTO_TEST_SUITE(kubevirt_versions)

BOOST_AUTO_TEST_CASE(parses_the_modelled_releases_only) {
  BOOST_TEST(parse_kubevirt_version("1.3")->minor == 3);
  BOOST_TEST(parse_kubevirt_version("1.6")->minor == 6);
  BOOST_TEST(parse_kubevirt_version("1.9")->minor == 9);
  for (auto bad : {"1.2", "1.10", "v1.6", "", "1.6.0"}) {
    auto parsed = parse_kubevirt_version(bad);
    BOOST_TEST(!parsed);
    if (!parsed)
      BOOST_TEST(parsed.err().message.find("expected 1.3, 1.4, 1.5, 1.6, 1.7, 1.8 or 1.9") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(release_1_6_keeps_added_node_selector) {
  auto vmim = pinned_vmim();
  BOOST_TEST(!enforce_schema(vmim_schema({6}), vmim, nullptr, false));
  BOOST_TEST(vmim["spec"]["addedNodeSelector"]["kubernetes.io/hostname"] == "node-02");
}

BOOST_AUTO_TEST_CASE(older_releases_prune_it_and_keep_vmi_name) {
  for (int minor : {3, 4, 5}) {
    auto vmim = pinned_vmim();
    BOOST_TEST(!enforce_schema(vmim_schema({minor}), vmim, nullptr, false));
    BOOST_TEST(!vmim["spec"].contains("addedNodeSelector"), "1." << minor);
    BOOST_TEST(vmim["spec"]["vmiName"] == "vm-1");
  }
}

BOOST_AUTO_TEST_CASE(priority_is_served_from_1_7_as_a_plain_string) {
  for (int minor : {3, 6, 7, 9}) {
    auto vmim = pinned_vmim();
    vmim["spec"]["priority"] = "high"; // no enum: any string passes the schema
    vmim["spec"]["unknown"] = true;
    BOOST_TEST(!enforce_schema(vmim_schema({minor}), vmim, nullptr, false));
    BOOST_TEST(vmim["spec"].contains("priority") == (minor >= 7), "1." << minor);
    BOOST_TEST(!vmim["spec"].contains("unknown"));
  }
}

BOOST_AUTO_TEST_SUITE_END()
