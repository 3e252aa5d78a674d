// The authorizer's pure parts: HTTP requests to Kubernetes request attributes as
// apiserver's RequestInfoFactory reads them, and PolicyRule / subject matching.
#include <boost/test/unit_test.hpp>

#include <httplib.h>

#include "sim/rbac_authorizer.hpp"
#include "sim/request_attributes.hpp"

using namespace schedopt::sim;
using nlohmann::json;

namespace {

request_attributes attrs(const std::string& method, const std::string& path,
                         std::multimap<std::string, std::string> params = {}) {
  httplib::Request req;
  req.method = method;
  req.path = path;
  for (auto& p : params)
    req.params.emplace(p.first, p.second);
  return attributes_of(req);
}

} // namespace

BOOST_AUTO_TEST_SUITE(sim_rbac_rules)

BOOST_AUTO_TEST_CASE(http_maps_to_verbs_as_request_info_does) {
  auto get = attrs("GET", "/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vm-1");
  BOOST_TEST(get.resource_request);
  BOOST_TEST(get.verb == "get");
  BOOST_TEST(get.group == "kubevirt.io");
  BOOST_TEST(get.ns == "ns");
  BOOST_TEST(get.resource == "virtualmachineinstances");
  BOOST_TEST(get.name == "vm-1");
  BOOST_TEST(attrs("GET", "/api/v1/nodes").verb == "list");
  BOOST_TEST(attrs("GET", "/api/v1/nodes", {{"watch", "true"}}).verb == "watch");
  BOOST_TEST(attrs("GET", "/api/v1/nodes", {{"watch", "false"}}).verb == "list");
  BOOST_TEST(attrs("GET", "/api/v1/watch/namespaces/ns/pods").verb == "watch");
  BOOST_TEST(attrs("GET", "/api/v1/watch/namespaces/ns/pods").ns == "ns");
  BOOST_TEST(attrs("POST", "/api/v1/namespaces/ns/configmaps").verb == "create");
  BOOST_TEST(attrs("PUT", "/api/v1/namespaces/ns/configmaps/c").verb == "update");
  BOOST_TEST(attrs("PATCH", "/api/v1/namespaces/ns/configmaps/c").verb == "patch");
  BOOST_TEST(attrs("DELETE", "/api/v1/namespaces/ns/configmaps/c").verb == "delete");
  BOOST_TEST(attrs("DELETE", "/api/v1/namespaces/ns/configmaps").verb == "deletecollection");
  auto status = attrs("PATCH", "/apis/stork.libopenstorage.org/v1alpha1/schedulingoptimizations/so/status");
  BOOST_TEST(status.ns == "");
  BOOST_TEST(status.name == "so");
  BOOST_TEST(status.subresource == "status");
  auto one = attrs("GET", "/api/v1/nodes", {{"watch", "1"}, {"fieldSelector", "metadata.name=node-1"}});
  BOOST_TEST(one.verb == "watch");
  BOOST_TEST(one.name == "node-1");
}

BOOST_AUTO_TEST_CASE(a_namespace_object_is_in_its_own_namespace) {
  auto ns = attrs("GET", "/api/v1/namespaces/team-a");
  BOOST_TEST(ns.resource == "namespaces");
  BOOST_TEST(ns.name == "team-a");
  BOOST_TEST(ns.ns == "team-a");
  auto status = attrs("PUT", "/api/v1/namespaces/team-a/status");
  BOOST_TEST(status.resource == "namespaces");
  BOOST_TEST(status.subresource == "status");
  BOOST_TEST(attrs("GET", "/api/v1/namespaces").ns == "");
}

BOOST_AUTO_TEST_CASE(discovery_and_admin_paths_are_non_resource) {
  for (auto* path : {"/api", "/api/v1", "/apis", "/apis/kubevirt.io", "/apis/kubevirt.io/v1", "/version",
                     "/admin/audit", "/openapi/v2"}) {
    auto a = attrs("GET", path);
    BOOST_TEST(!a.resource_request, path);
    BOOST_TEST(a.verb == "get");
    BOOST_TEST(a.path == path);
  }
  BOOST_TEST(attrs("POST", "/admin/failover").verb == "post");
}

BOOST_AUTO_TEST_CASE(rules_match_groups_resources_verbs_and_names) {
  auto patch_status = attrs("PATCH", "/apis/stork.libopenstorage.org/v1alpha1/schedulingoptimizations/so/status");
  json status_rule = {{"apiGroups", {"stork.libopenstorage.org"}},
                      {"resources", {"schedulingoptimizations/status"}}, {"verbs", {"patch"}}};
  json main_rule = {{"apiGroups", {"stork.libopenstorage.org"}},
                    {"resources", {"schedulingoptimizations"}}, {"verbs", {"*"}}};
  BOOST_TEST(rule_allows(status_rule, patch_status));
  BOOST_TEST(!rule_allows(main_rule, patch_status));
  BOOST_TEST(rule_allows({{"apiGroups", {"*"}}, {"resources", {"*/status"}}, {"verbs", {"patch"}}}, patch_status));
  BOOST_TEST(rule_allows({{"apiGroups", {"*"}}, {"resources", {"*"}}, {"verbs", {"*"}}}, patch_status));
  BOOST_TEST(!rule_allows({{"apiGroups", {""}}, {"resources", {"*"}}, {"verbs", {"*"}}}, patch_status));
  auto patch_main = attrs("PATCH", "/apis/stork.libopenstorage.org/v1alpha1/schedulingoptimizations/so");
  BOOST_TEST(!rule_allows(status_rule, patch_main));
  BOOST_TEST(rule_allows(main_rule, patch_main));

  json named = {{"apiGroups", {""}}, {"resources", {"configmaps"}}, {"verbs", {"get", "list"}},
                {"resourceNames", {"config"}}};
  BOOST_TEST(rule_allows(named, attrs("GET", "/api/v1/namespaces/ns/configmaps/config")));
  BOOST_TEST(!rule_allows(named, attrs("GET", "/api/v1/namespaces/ns/configmaps/other")));
  BOOST_TEST(!rule_allows(named, attrs("GET", "/api/v1/namespaces/ns/configmaps")));

  json urls = {{"verbs", {"get"}}, {"nonResourceURLs", {"/metrics", "/debug/*"}}};
  BOOST_TEST(rule_allows(urls, attrs("GET", "/metrics")));
  BOOST_TEST(rule_allows(urls, attrs("GET", "/debug/pprof")));
  BOOST_TEST(!rule_allows(urls, attrs("GET", "/version")));
  BOOST_TEST(!rule_allows(urls, attrs("GET", "/api/v1/namespaces/ns/configmaps")));
}

BOOST_AUTO_TEST_CASE(subjects_name_service_accounts_users_and_groups) {
  user_info sa{"system:serviceaccount:schedopt:schedopt",
               {"system:serviceaccounts", "system:serviceaccounts:schedopt", "system:authenticated"}, {}};
  BOOST_TEST(subject_matches({{"kind", "ServiceAccount"}, {"name", "schedopt"}, {"namespace", "schedopt"}}, sa, ""));
  BOOST_TEST(!subject_matches({{"kind", "ServiceAccount"}, {"name", "schedopt"}, {"namespace", "other"}}, sa, ""));
  BOOST_TEST(!subject_matches({{"kind", "ServiceAccount"}, {"name", "schedopt"}}, sa, ""));
  BOOST_TEST(subject_matches({{"kind", "ServiceAccount"}, {"name", "schedopt"}}, sa, "schedopt"));
  BOOST_TEST(subject_matches({{"kind", "User"}, {"name", "system:serviceaccount:schedopt:schedopt"}}, sa, ""));
  BOOST_TEST(subject_matches({{"kind", "Group"}, {"name", "system:authenticated"}}, sa, ""));
  BOOST_TEST(subject_matches({{"kind", "Group"}, {"name", "system:serviceaccounts:schedopt"}}, sa, ""));
  BOOST_TEST(!subject_matches({{"kind", "Group"}, {"name", "system:serviceaccounts:other"}}, sa, ""));
}

BOOST_AUTO_TEST_CASE(forbidden_messages_follow_responsewriters) {
  user_info u{"system:serviceaccount:a:b", {}, {}};
  auto core = forbidden_status(u, attrs("GET", "/api/v1/namespaces/ns/secrets/s"));
  BOOST_TEST(core["message"] == "secrets \"s\" is forbidden: User \"system:serviceaccount:a:b\" cannot get "
                                "resource \"secrets\" in API group \"\" in the namespace \"ns\"");
  BOOST_TEST(core["details"] == json({{"name", "s"}, {"kind", "secrets"}}));
  auto path = forbidden_status(u, attrs("POST", "/admin/failover"));
  BOOST_TEST(path["message"] == "forbidden: User \"system:serviceaccount:a:b\" cannot post path \"/admin/failover\"");
  BOOST_TEST(path["code"] == 403);
  BOOST_TEST(path["reason"] == "Forbidden");
}

BOOST_AUTO_TEST_SUITE_END()
