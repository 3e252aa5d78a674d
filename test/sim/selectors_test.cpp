// Unit tests of label and field selector parsing and matching.
#include <boost/test/unit_test.hpp>

#include "sim/selectors.hpp"

using nlohmann::json;
using schedopt::sim::field_selector;
using schedopt::sim::label_selector;

namespace {

json object_with_labels(json labels) {
  return {{"metadata", {{"name", "vm1"}, {"namespace", "ns"}, {"labels", labels}}},
          {"status", {{"phase", "Running"}, {"nodeName", "node-1"}, {"ready", true}}},
          {"spec", {{"vmiName", "vm1"}}}};
}

bool labels_match(const std::string& selector, const json& labels) {
  auto sel = label_selector::parse(selector);
  BOOST_REQUIRE_MESSAGE(sel, "parse " << selector);
  return sel->matches_object(object_with_labels(labels));
}

} // namespace

BOOST_AUTO_TEST_SUITE(selectors_suite)

BOOST_AUTO_TEST_CASE(label_operators) {
  json labels = {{"app", "web"}, {"tier", "front"}};
  BOOST_TEST(labels_match("", labels));
  BOOST_TEST(labels_match("app=web", labels));
  BOOST_TEST(labels_match("app==web", labels));
  BOOST_TEST(!labels_match("app=db", labels));
  BOOST_TEST(labels_match("app!=db", labels));
  BOOST_TEST(labels_match("missing!=x", labels));
  BOOST_TEST(labels_match("app in (db, web)", labels));
  BOOST_TEST(!labels_match("app notin (db,web)", labels));
  BOOST_TEST(labels_match("tier", labels));
  BOOST_TEST(!labels_match("!tier", labels));
  BOOST_TEST(labels_match("!missing", labels));
  BOOST_TEST(labels_match("app=web,tier in (front),!missing", labels));
  BOOST_TEST(!labels_match("app=web,tier=back", labels));
  BOOST_TEST(labels_match("app.kubernetes.io/managed-by!=schedopt", labels));
}

BOOST_AUTO_TEST_CASE(bad_label_selectors_are_errors) {
  BOOST_TEST(!label_selector::parse("app in (a"));
  BOOST_TEST(!label_selector::parse("app between (a)"));
  BOOST_TEST(!label_selector::parse("a,,b"));
  auto err = label_selector::parse("=x");
  BOOST_REQUIRE(!err);
  BOOST_TEST(err.err().http_status == 400);
}

BOOST_AUTO_TEST_CASE(field_selectors) {
  auto obj = object_with_labels(json::object());
  auto check = [&](const std::string& text) {
    auto sel = field_selector::parse(text);
    BOOST_REQUIRE_MESSAGE(sel, "parse " << text);
    return sel->matches(obj);
  };
  BOOST_TEST(check("metadata.name=vm1"));
  BOOST_TEST(check("metadata.namespace==ns"));
  BOOST_TEST(check("status.phase=Running,status.nodeName=node-1"));
  BOOST_TEST(!check("status.phase!=Running"));
  BOOST_TEST(check("spec.vmiName=vm1"));
  BOOST_TEST(check("status.ready=true"));
  BOOST_TEST(check("spec.nodeName="));
  BOOST_TEST(!check("spec.nodeName!="));
  BOOST_TEST(!field_selector::parse("status.phase"));
}

BOOST_AUTO_TEST_SUITE_END()
