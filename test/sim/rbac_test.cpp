// --authorization rbac on the wire: ServiceAccount tokens issued by --service-account get
// exactly what the stored RBAC objects grant (cluster-wide, per namespace, per
// subresource, per verb and resource name) and Kubernetes' 403 body otherwise; the
// account directory holds what the kubelet mounts; TokenReview and SubjectAccessReview
// answer from those tokens and grants.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "temp_dir.hpp"
#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

namespace {

/// The accounts the shared RBAC simulator issues, one per case so grants do not leak
/// between cases; their directories live under one temp dir.
const char* const accounts[] = {"schedopt/schedopt", "rbac/ns-user",     "rbac/status-user",
                                "rbac/watch-user",   "rbac/files-user",  "rbac/metrics-reader",
                                "rbac/auth-delegator", "rbac/self-asker"};

/// Static, so it is removed at exit after the simulator writing into it (constructed
/// later) is gone.
const std::string& accounts_dir() {
  static temp_dir dir("schedopt-sim-rbac");
  return dir.path;
}

std::string account_dir(const std::string& account) {
  auto flat = account;
  for (auto& c : flat)
    c = c == '/' ? '_' : c;
  return accounts_dir() + "/" + flat;
}

sim_process& rbac_sim() {
  static sim_process sim([] {
    std::vector<std::string> args = {"--nodes", "3", "--vmis", "6", "--seed", "11",
                                     "--authorization", "rbac"};
    for (auto* a : accounts) {
      args.insert(args.end(), {"--service-account", a, "--service-account-dir", account_dir(a)});
    }
    return args;
  }());
  return sim;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string token_of(const std::string& account) {
  return read_file(account_dir(account) + "/token");
}

std::string user_of(const std::string& account) {
  auto slash = account.find('/');
  return "system:serviceaccount:" + account.substr(0, slash) + ":" + account.substr(slash + 1);
}

http_reply as(const std::string& account, const std::string& method, const std::string& path,
              const std::string& body = {},
              const std::string& content_type = "application/json") {
  return http_request(rbac_sim(), method, path, body, content_type, token_of(account));
}

http_reply as_admin(const std::string& method, const std::string& path, const std::string& body = {}) {
  return http_request(rbac_sim(), method, path, body);
}

void create_ok(const std::string& path, const json& body) {
  auto reply = as_admin("POST", path, body.dump());
  BOOST_REQUIRE_MESSAGE(reply.status == 201, path << ": " << reply.status << " " << reply.body);
}

const std::string rbac_api = "/apis/rbac.authorization.k8s.io/v1";

void cluster_role(const std::string& name, const json& rules) {
  create_ok(rbac_api + "/clusterroles",
            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
             {"metadata", {{"name", name}}}, {"rules", rules}});
}

json sa_subject(const std::string& account) {
  auto slash = account.find('/');
  return json::array({{{"kind", "ServiceAccount"},
                       {"name", account.substr(slash + 1)},
                       {"namespace", account.substr(0, slash)}}});
}

void cluster_role_binding(const std::string& name, const std::string& role, const json& subjects) {
  create_ok(rbac_api + "/clusterrolebindings",
            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
             {"metadata", {{"name", name}}},
             {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", role}}},
             {"subjects", subjects}});
}

void ensure_namespace(const std::string& ns) {
  auto reply = as_admin("POST", "/api/v1/namespaces",
                        json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}.dump());
  BOOST_REQUIRE(reply.status == 201 || reply.status == 409);
}

json forbidden(const std::string& message, const json& details) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
          {"status", "Failure"}, {"message", message}, {"reason", "Forbidden"},
          {"details", details}, {"code", 403}};
}

json vmim_body(const std::string& name, const std::string& vmi) {
  return {{"apiVersion", "kubevirt.io/v1"}, {"kind", "VirtualMachineInstanceMigration"},
          {"metadata", {{"name", name}}}, {"spec", {{"vmiName", vmi}}}};
}

} // namespace

BOOST_AUTO_TEST_SUITE(sim_rbac)

BOOST_AUTO_TEST_CASE(unbound_service_account_gets_kubernetes_403_and_is_audited) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "schedopt/schedopt";
  auto reply = as(account, "POST", "/apis/kubevirt.io/v1/namespaces/x/virtualmachineinstancemigrations",
                  vmim_body("denied-vmim", "vm-1").dump());
  BOOST_TEST(reply.status == 403);
  BOOST_TEST(reply.json()
             == forbidden("virtualmachineinstancemigrations.kubevirt.io is forbidden: User "
                          "\"system:serviceaccount:schedopt:schedopt\" cannot create resource "
                          "\"virtualmachineinstancemigrations\" in API group \"kubevirt.io\" in the "
                          "namespace \"x\"",
                          {{"group", "kubevirt.io"}, {"kind", "virtualmachineinstancemigrations"}}),
             reply.body);
  // Core group, a named object, cluster scope.
  auto node = as(account, "GET", "/api/v1/nodes/nope");
  BOOST_TEST(node.json()
             == forbidden("nodes \"nope\" is forbidden: User \"system:serviceaccount:schedopt:schedopt\" "
                          "cannot get resource \"nodes\" in API group \"\" at the cluster scope",
                          {{"name", "nope"}, {"kind", "nodes"}}),
             node.body);
  // The denial is in the audit, with its code and user.
  auto audit = as_admin("GET", "/admin/audit").json();
  bool recorded = false;
  for (auto& w : audit["writes"])
    if (w["name"] == "denied-vmim" && w["code"] == 403 && w["user"] == user_of(account)
        && w["verb"] == "create" && w["namespace"] == "x")
      recorded = true;
  BOOST_TEST(recorded, audit["writes"].dump());
}

BOOST_AUTO_TEST_CASE(cluster_role_binding_grants_cluster_wide) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "schedopt/schedopt";
  auto vmis = as_admin("GET", "/apis/kubevirt.io/v1/virtualmachineinstances").json();
  BOOST_REQUIRE(!vmis["items"].empty());
  auto vmi = vmis["items"][0]["metadata"];
  std::string ns = vmi["namespace"], name = vmi["name"];
  auto path = "/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstancemigrations";
  BOOST_TEST(as(account, "POST", path, vmim_body("before-grant", name).dump()).status == 403);

  cluster_role("vmim-creator", json::array({{{"apiGroups", {"kubevirt.io"}},
                                             {"resources", {"virtualmachineinstancemigrations"}},
                                             {"verbs", {"create", "get"}}}}));
  cluster_role_binding("vmim-creator", "vmim-creator", sa_subject(account));
  auto created = as(account, "POST", path, vmim_body("after-grant", name).dump());
  BOOST_TEST(created.status == 201, created.body);
  BOOST_TEST(as(account, "GET", path + "/after-grant").status == 200);
  // Granted verbs only: no delete, no list.
  BOOST_TEST(as(account, "DELETE", path + "/after-grant").status == 403);
  BOOST_TEST(as(account, "GET", path).status == 403);
  // The admin token is never asked.
  BOOST_TEST(as_admin("GET", "/admin/audit").status == 200);
  BOOST_TEST(as(account, "GET", "/admin/audit").json()["message"]
             == "forbidden: User \"system:serviceaccount:schedopt:schedopt\" cannot get path \"/admin/audit\"");
}

BOOST_AUTO_TEST_CASE(role_binding_grants_only_in_its_namespace) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/ns-user";
  ensure_namespace("team-a");
  ensure_namespace("team-b");
  create_ok(rbac_api + "/namespaces/team-a/roles",
            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"},
             {"metadata", {{"name", "cm-reader"}, {"namespace", "team-a"}}},
             {"rules", json::array({{{"apiGroups", {""}}, {"resources", {"configmaps"}},
                                     {"verbs", {"get", "list"}}}})}});
  // A ServiceAccount subject without a namespace means the RoleBinding's (team-a), so
  // this one names team-a/ns-user, not rbac/ns-user.
  create_ok(rbac_api + "/namespaces/team-a/rolebindings",
            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
             {"metadata", {{"name", "cm-reader-wrong-ns"}, {"namespace", "team-a"}}},
             {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "cm-reader"}}},
             {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", "ns-user"}}})}});
  BOOST_TEST(as(account, "GET", "/api/v1/namespaces/team-a/configmaps").status == 403);
  create_ok(rbac_api + "/namespaces/team-a/rolebindings",
            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
             {"metadata", {{"name", "cm-reader"}, {"namespace", "team-a"}}},
             {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "cm-reader"}}},
             {"subjects", sa_subject(account)}});
  BOOST_TEST(as(account, "GET", "/api/v1/namespaces/team-a/configmaps").status == 200);
  auto other = as(account, "GET", "/api/v1/namespaces/team-b/configmaps");
  BOOST_TEST(other.json()
             == forbidden("configmaps is forbidden: User \"system:serviceaccount:rbac:ns-user\" cannot "
                          "list resource \"configmaps\" in API group \"\" in the namespace \"team-b\"",
                          {{"kind", "configmaps"}}),
             other.body);
  auto everywhere = as(account, "GET", "/api/v1/configmaps");
  BOOST_TEST(everywhere.json()["message"]
             == "configmaps is forbidden: User \"system:serviceaccount:rbac:ns-user\" cannot list "
                "resource \"configmaps\" in API group \"\" at the cluster scope");
  BOOST_TEST(as(account, "POST", "/api/v1/namespaces/team-a/configmaps", configmap_body("nope")).status == 403);

  // A RoleBinding to a ClusterRole grants its rules in the binding's namespace only; a
  // Group subject names every ServiceAccount of a namespace.
  cluster_role("secret-reader", json::array({{{"apiGroups", {""}}, {"resources", {"secrets"}},
                                              {"verbs", {"get"}}}}));
  create_ok(rbac_api + "/namespaces/team-b/rolebindings",
            {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
             {"metadata", {{"name", "secret-reader"}, {"namespace", "team-b"}}},
             {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "secret-reader"}}},
             {"subjects", json::array({{{"kind", "Group"}, {"name", "system:serviceaccounts:rbac"},
                                        {"apiGroup", "rbac.authorization.k8s.io"}}})}});
  BOOST_TEST(as(account, "GET", "/api/v1/namespaces/team-b/secrets/missing").status == 404);
  BOOST_TEST(as("rbac/watch-user", "GET", "/api/v1/namespaces/team-b/secrets/missing").status == 404);
  BOOST_TEST(as("schedopt/schedopt", "GET", "/api/v1/namespaces/team-b/secrets/missing").status == 403);
  BOOST_TEST(as(account, "GET", "/api/v1/namespaces/team-a/secrets/missing").status == 403);
}

BOOST_AUTO_TEST_CASE(subresource_rules_are_their_own_resource) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/status-user";
  auto name = unique_name("rbac-so");
  BOOST_REQUIRE(as_admin("POST", schedopt_path, schedopt_body(name)).status == 201);
  cluster_role("so-status-writer",
               json::array({{{"apiGroups", {"stork.libopenstorage.org"}},
                             {"resources", {"schedulingoptimizations"}},
                             {"verbs", {"get", "list", "watch"}}},
                            {{"apiGroups", {"stork.libopenstorage.org"}},
                             {"resources", {"schedulingoptimizations/status"}},
                             {"verbs", {"patch"}}}}));
  cluster_role_binding("so-status-writer", "so-status-writer", sa_subject(account));
  const std::string merge = "application/merge-patch+json";
  auto status = as(account, "PATCH", schedopt_path + "/" + name + "/status",
                   R"({"status":{"stage":"Pending"}})", merge);
  BOOST_TEST(status.status == 200, status.body);
  auto main = as(account, "PATCH", schedopt_path + "/" + name, R"({"metadata":{"labels":{"a":"b"}}})", merge);
  BOOST_TEST(main.json()
             == forbidden("schedulingoptimizations.stork.libopenstorage.org \"" + name
                            + "\" is forbidden: User \"system:serviceaccount:rbac:status-user\" cannot "
                              "patch resource \"schedulingoptimizations\" in API group "
                              "\"stork.libopenstorage.org\" at the cluster scope",
                          {{"name", name}, {"group", "stork.libopenstorage.org"},
                           {"kind", "schedulingoptimizations"}}),
             main.body);
  auto put = as(account, "PUT", schedopt_path + "/" + name + "/status", schedopt_body(name));
  BOOST_TEST(put.json()
             == forbidden("schedulingoptimizations.stork.libopenstorage.org \"" + name
                            + "\" is forbidden: User \"system:serviceaccount:rbac:status-user\" cannot "
                              "update resource \"schedulingoptimizations/status\" in API group "
                              "\"stork.libopenstorage.org\" at the cluster scope",
                          {{"name", name}, {"group", "stork.libopenstorage.org"},
                           {"kind", "schedulingoptimizations"}}),
             put.body);
  BOOST_TEST(as(account, "GET", schedopt_path + "/" + name).status == 200);
}

BOOST_AUTO_TEST_CASE(watch_list_and_resource_names_are_distinct) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/watch-user";
  auto nodes = as_admin("GET", "/api/v1/nodes").json()["items"];
  BOOST_REQUIRE(nodes.size() >= 2);
  std::string first = nodes[0]["metadata"]["name"], second = nodes[1]["metadata"]["name"];
  cluster_role("node-lister", json::array({{{"apiGroups", {""}}, {"resources", {"nodes"}}, {"verbs", {"list"}}},
                                           {{"apiGroups", {""}}, {"resources", {"nodes"}},
                                            {"verbs", {"get", "watch"}}, {"resourceNames", {first}}}}));
  cluster_role_binding("node-lister", "node-lister", sa_subject(account));
  BOOST_TEST(as(account, "GET", "/api/v1/nodes").status == 200);
  auto watch = as(account, "GET", "/api/v1/nodes?watch=true");
  BOOST_TEST(watch.json()["message"]
             == "nodes is forbidden: User \"system:serviceaccount:rbac:watch-user\" cannot watch resource "
                "\"nodes\" in API group \"\" at the cluster scope",
             watch.body);
  BOOST_TEST(as(account, "GET", "/api/v1/watch/nodes").status == 403);
  BOOST_TEST(as(account, "GET", "/api/v1/nodes/" + first).status == 200);
  BOOST_TEST(as(account, "GET", "/api/v1/nodes/" + second).status == 403);
  // A watch narrowed to one name by fieldSelector is a watch of that name (how informers
  // of a single object ask); this one ends at once.
  auto one = as(account, "GET", "/api/v1/nodes?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3D" + first);
  BOOST_TEST(one.status == 200, one.body);
  // deletecollection is its own verb.
  auto wipe = as(account, "DELETE", "/api/v1/nodes");
  BOOST_TEST(wipe.json()["message"]
             == "nodes is forbidden: User \"system:serviceaccount:rbac:watch-user\" cannot deletecollection "
                "resource \"nodes\" in API group \"\" at the cluster scope");
}

BOOST_AUTO_TEST_CASE(service_account_dir_holds_the_kubelet_files) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/files-user";
  auto dir = account_dir(account);
  BOOST_TEST(read_file(dir + "/namespace") == "rbac");
  BOOST_TEST(read_file(dir + "/ca.crt") == read_file(sim.ca_file()));
  BOOST_TEST(read_file(dir + "/ca.crt").rfind("-----BEGIN CERTIFICATE-----", 0) == 0);
  auto token = read_file(dir + "/token");
  BOOST_TEST(!token.empty());
  BOOST_TEST(token.find('\n') == std::string::npos);
  BOOST_TEST(std::count(token.begin(), token.end(), '.') == 2); // JWT-shaped
  // The account and its namespace exist.
  BOOST_TEST(as_admin("GET", "/api/v1/namespaces/rbac").status == 200);
  BOOST_TEST(as_admin("GET", "/api/v1/namespaces/rbac/serviceaccounts/files-user").status == 200);
  // Authenticated: discovery is open, resources are not.
  BOOST_TEST(as(account, "GET", "/api").status == 200);
  BOOST_TEST(as(account, "GET", "/apis").status == 200);
  BOOST_TEST(as(account, "GET", "/apis/kubevirt.io/v1").status == 200);
  BOOST_TEST(as(account, "GET", "/version").status == 200);
  BOOST_TEST(as(account, "GET", "/api/v1/namespaces/rbac/configmaps").status == 403);
  // A bound token dies with its account.
  BOOST_TEST(as_admin("DELETE", "/api/v1/namespaces/rbac/serviceaccounts/files-user").status == 200);
  BOOST_TEST(as(account, "GET", "/api").status == 401);
}

BOOST_AUTO_TEST_CASE(without_rbac_every_valid_token_may_do_anything) {
  temp_dir base("schedopt-sim-sa");
  BOOST_REQUIRE(!base.path.empty());
  std::string dir = base.path + "/sa";
  sim_process sim({"--nodes", "2", "--vmis", "2", "--service-account", "ops/bot", "--service-account-dir", dir});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto token = read_file(dir + "/token");
  auto created = http_request(sim, "POST", "/api/v1/namespaces/ops/configmaps", configmap_body("free"),
                              "application/json", token);
  BOOST_TEST(created.status == 201, created.body);
  BOOST_TEST(http_request(sim, "GET", "/admin/audit", {}, "application/json", token).status == 200);
  BOOST_TEST(http_request(sim, "GET", "/api", {}, "application/json", "sim-wrong").status == 401);
}

json token_review(const std::string& token) {
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"}, {"spec", {{"token", token}}}};
}

json metrics_access_review(const std::string& user, const json& groups) {
  return {{"apiVersion", "authorization.k8s.io/v1"},
          {"kind", "SubjectAccessReview"},
          {"spec",
           {{"user", user}, {"groups", groups}, {"nonResourceAttributes", {{"path", "/metrics"}, {"verb", "get"}}}}}};
}

const std::string token_reviews = "/apis/authentication.k8s.io/v1/tokenreviews";
const std::string access_reviews = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

BOOST_AUTO_TEST_CASE(token_review_names_the_service_account_of_a_token_it_issued) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/metrics-reader";
  auto reviewed = as_admin("POST", token_reviews, token_review(token_of(account)).dump());
  BOOST_TEST(reviewed.status == 201);
  auto status = reviewed.json()["status"];
  BOOST_TEST(status["authenticated"] == true);
  BOOST_TEST(status["user"]["username"] == user_of(account));
  auto sa = as_admin("GET", "/api/v1/namespaces/rbac/serviceaccounts/metrics-reader").json();
  BOOST_TEST(status["user"]["uid"] == sa["metadata"]["uid"]);
  BOOST_TEST(status["user"]["groups"]
             == json::array({"system:serviceaccounts", "system:serviceaccounts:rbac", "system:authenticated"}));
  BOOST_TEST(reviewed.json()["kind"] == "TokenReview");

  auto unknown = as_admin("POST", token_reviews, token_review("not-a-token").dump());
  BOOST_TEST(unknown.status == 201);
  BOOST_TEST(!unknown.json()["status"].contains("authenticated"));
  BOOST_TEST(unknown.json()["status"]["user"] == json::object());
  BOOST_TEST(!unknown.json()["status"].value("error", "").empty());

  auto empty = as_admin("POST", token_reviews, token_review("").dump());
  BOOST_TEST(empty.status == 400);
  BOOST_TEST(empty.json()["message"] == "token is required for TokenReview in authentication");
  BOOST_TEST(as_admin("GET", token_reviews).status == 405);
}

BOOST_AUTO_TEST_CASE(subject_access_review_follows_the_stored_rbac) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/metrics-reader";
  auto groups = json::array({"system:serviceaccounts", "system:serviceaccounts:rbac", "system:authenticated"});
  auto review = metrics_access_review(user_of(account), groups).dump();
  auto before = as_admin("POST", access_reviews, review);
  BOOST_TEST(before.status == 201);
  BOOST_TEST(before.json()["status"]["allowed"] == false);

  cluster_role("metrics-reader", json::array({{{"verbs", {"get"}}, {"nonResourceURLs", {"/metrics"}}}}));
  cluster_role_binding("metrics-reader", "metrics-reader", sa_subject(account));
  auto after = as_admin("POST", access_reviews, review);
  BOOST_TEST(after.status == 201);
  BOOST_TEST(after.json()["status"]["allowed"] == true);
  // Another path is still not granted; system:masters is allowed everything.
  auto other = metrics_access_review(user_of(account), groups);
  other["spec"]["nonResourceAttributes"]["path"] = "/debug/pprof";
  BOOST_TEST(as_admin("POST", access_reviews, other.dump()).json()["status"]["allowed"] == false);
  BOOST_TEST(as_admin("POST", access_reviews, metrics_access_review("alice", json::array({"system:masters"})).dump())
               .json()["status"]["allowed"] == true);

  auto invalid = metrics_access_review("", json::array());
  auto refused = as_admin("POST", access_reviews, invalid.dump());
  BOOST_TEST(refused.status == 422);
  BOOST_TEST(refused.json()["message"]
             == "SubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": "
                "at least one of user or group must be specified");
  BOOST_TEST(refused.json()["details"]["causes"][0]["field"] == "spec.user");
}

BOOST_AUTO_TEST_CASE(reviews_need_their_own_grant_as_system_auth_delegator_gives_it) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/auth-delegator";
  auto review = token_review(token_of("rbac/metrics-reader")).dump();
  BOOST_TEST(as(account, "POST", token_reviews, review).status == 403);
  cluster_role("auth-delegator",
               json::array({{{"apiGroups", {"authentication.k8s.io"}}, {"resources", {"tokenreviews"}},
                             {"verbs", {"create"}}},
                            {{"apiGroups", {"authorization.k8s.io"}}, {"resources", {"subjectaccessreviews"}},
                             {"verbs", {"create"}}}}));
  cluster_role_binding("auth-delegator", "auth-delegator", sa_subject(account));
  auto granted = as(account, "POST", token_reviews, review);
  BOOST_TEST(granted.status == 201);
  BOOST_TEST(granted.json()["status"]["authenticated"] == true);
  auto discovery = as_admin("GET", "/apis/authentication.k8s.io/v1").json();
  BOOST_REQUIRE(discovery["resources"].is_array());
  BOOST_TEST(discovery["resources"][0]["name"] == "tokenreviews");
  BOOST_TEST(discovery["resources"][0]["verbs"] == json::array({"create"}));
}

// kubectl auth whoami and auth can-i: every authenticated user may ask about itself
// (system:basic-user), whatever else it is granted.
BOOST_AUTO_TEST_CASE(anyone_may_ask_who_it_is_and_what_it_may_do) {
  auto& sim = rbac_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  const std::string account = "rbac/self-asker";
  auto who = as(account, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  BOOST_TEST(who.status == 201);
  BOOST_TEST(who.json()["kind"] == "SelfSubjectReview");
  BOOST_TEST(who.json()["status"]["userInfo"]["username"] == user_of(account));
  BOOST_TEST(who.json()["status"]["userInfo"]["groups"]
             == json::array({"system:serviceaccounts", "system:serviceaccounts:rbac", "system:authenticated"}));

  const std::string own = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
  const std::string list_nodes = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
                                 R"("spec":{"resourceAttributes":{"verb":"list","resource":"nodes"}}})";
  auto may = as(account, "POST", own, list_nodes);
  BOOST_TEST(may.status == 201);
  BOOST_TEST(may.json()["kind"] == "SelfSubjectAccessReview");
  BOOST_TEST(may.json()["status"]["allowed"] == false);
  BOOST_TEST(!may.json()["spec"].contains("user")); // the question as asked
  BOOST_TEST(as_admin("POST", own, list_nodes).json()["status"]["allowed"] == true);
  auto neither = as(account, "POST", own, R"({"kind":"SelfSubjectAccessReview","spec":{}})");
  BOOST_TEST(neither.status == 422);
  BOOST_TEST(neither.json()["message"]
             == ".authorization.k8s.io \"\" is invalid: spec: Invalid value: null: exactly one of "
                "nonResourceAttributes or resourceAttributes must be specified");
}

BOOST_AUTO_TEST_SUITE_END()
