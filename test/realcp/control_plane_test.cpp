// The harness itself (test/controlplane/run.sh): the pinned release answers, its
// admission and kwok do what the simulator's API server never did (a new Node is tainted
// not-ready at creation; kwok's heartbeats keep nodes Ready past the node monitor grace
// period), kube-apiserver's audit log records each write with its
// user, and a stop leaves no process and no etcd data behind.
#include <boost/test/unit_test.hpp>

#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/kube_calls.hpp"
#include "realcp/control_plane.hpp"

using namespace schedopt::e2e;
using namespace schedopt::realcp;

namespace {

json node(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}};
}

bool has_taint(const json& n, const std::string& key) {
  for (auto& t : n.value("/spec/taints"_json_pointer, json::array()))
    if (t.value("key", "") == key)
      return true;
  return false;
}

std::string condition(const json& n, const std::string& type) {
  for (auto& c : n.value("/status/conditions"_json_pointer, json::array()))
    if (c.value("type", "") == type)
      return c.value("status", "");
  return "";
}

// The processes whose process group is `group`, as "pid (comm) state", read from /proc:
// what a failed stop left behind, named.
std::vector<std::string> group_members(pid_t group) {
  std::vector<std::string> members;
  DIR* proc = opendir("/proc");
  if (proc == nullptr)
    return members;
  while (auto* entry = readdir(proc)) {
    std::ifstream in(std::string("/proc/") + entry->d_name + "/stat");
    std::string stat;
    if (!std::getline(in, stat))
      continue;
    // pid (comm) state ppid pgrp ...: comm may hold spaces, so parse after its ')'.
    auto close = stat.rfind(')');
    if (close == std::string::npos)
      continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0, pgrp = 0;
    rest >> state >> ppid >> pgrp;
    if (pgrp == group)
      members.push_back(stat.substr(0, close + 1) + " " + state);
  }
  closedir(proc);
  return members;
}

std::string first_line(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace

BOOST_AUTO_TEST_SUITE(control_plane_harness)

BOOST_AUTO_TEST_CASE(answers_as_the_pinned_release_and_records_writes_with_their_user) {
  control_plane cp;
  BOOST_REQUIRE_MESSAGE(cp.ok(), cp.error());
  auto version = get(cp, "/version");
  // build.sh's versions file names what the pin built: "kubernetes vX.Y.Z".
  auto pinned = first_line(cp.value("BIN") + "/../versions");
  BOOST_TEST(pinned == "kubernetes " + version.value("gitVersion", std::string("?")));
  BOOST_TEST(status_of(cp, "GET", "/readyz") == 200);

  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "audited"}}}};
  call(cp, "POST", "/api/v1/namespaces/default/configmaps", cm, 201);
  // RBAC is on: the requester (no binding) may not list nodes.
  auto denied = schedopt::test::http_request(cp, "GET", "/api/v1/nodes", "", "application/json",
                                             cp.value("REQUESTER_TOKEN"));
  BOOST_TEST(denied.status == 403);

  bool create_seen = false, denial_seen = false;
  for (auto& line : cp.audit_lines()) {
    auto e = json::parse(line);
    if (e.value("stage", "") != "ResponseComplete")
      continue;
    auto ref = e.value("objectRef", json::object());
    if (e.value("verb", "") == "create" && ref.value("resource", "") == "configmaps" && ref.value("name", "") == "audited")
      create_seen = e.value("/user/username"_json_pointer, std::string()) == "admin"
                    && e.value("/responseStatus/code"_json_pointer, 0) == 201
                    && e.value("/requestObject/metadata/name"_json_pointer, std::string()) == "audited";
    if (e.value("verb", "") == "list" && ref.value("resource", "") == "nodes"
        && e.value("/user/username"_json_pointer, std::string()) == "requester")
      denial_seen = e.value("/responseStatus/code"_json_pointer, 0) == 403;
  }
  BOOST_TEST(create_seen);
  BOOST_TEST(denial_seen);
}

// TaintNodesByCondition: kube-apiserver's admission taints a Node created through the
// API not-ready (the simulator's API server never did). The node lifecycle controller
// then takes the taint off a node that never reported a Ready condition (it taints by
// conditions, and there is none), so what keeps schedopt off such a node is that it is
// never Ready, not the taint.
BOOST_AUTO_TEST_CASE(a_node_without_a_kubelet_is_tainted_at_creation_and_never_ready) {
  control_plane cp;
  BOOST_REQUIRE_MESSAGE(cp.ok(), cp.error());
  auto made = call(cp, "POST", "/api/v1/nodes", node("lonely"), 201);
  BOOST_TEST(has_taint(made, "node.kubernetes.io/not-ready"), made.dump());
  std::this_thread::sleep_for(std::chrono::seconds(3));
  BOOST_TEST(condition(get(cp, "/api/v1/nodes/lonely"), "Ready") != "True");
}

// kwok's node stages (node-initialize, node-heartbeat-with-lease) as the harness starts
// them: the nodes turn Ready, lose the not-ready taint and renew their Leases, and the
// real node lifecycle controller still finds them Ready after its grace period.
BOOST_AUTO_TEST_CASE(kwok_keeps_nodes_ready_past_the_node_monitor_grace_period) {
  control_plane_options options;
  options.kwok = true;
  options.node_monitor_grace_period = "20s";
  control_plane cp(options);
  BOOST_REQUIRE_MESSAGE(cp.ok(), cp.error());
  for (auto name : {"kwok-1", "kwok-2", "kwok-3"})
    call(cp, "POST", "/api/v1/nodes", node(name), 201);
  auto all_ready = [&] {
    for (auto& n : items(cp, "/api/v1/nodes"))
      if (condition(n, "Ready") != "True" || has_taint(n, "node.kubernetes.io/not-ready"))
        return false;
    return true;
  };
  BOOST_REQUIRE_MESSAGE(eventually(all_ready, std::chrono::seconds(30)), cp.log("kwok"));
  auto renewed = [&](const char* name) {
    return get(cp, std::string("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/") + name)
      .value("/spec/renewTime"_json_pointer, std::string());
  };
  auto first = renewed("kwok-1");
  std::this_thread::sleep_for(std::chrono::seconds(30)); // past the grace period
  BOOST_TEST(all_ready());
  for (auto& n : items(cp, "/api/v1/nodes"))
    BOOST_TEST(!has_taint(n, "node.kubernetes.io/unreachable"), n.dump());
  BOOST_TEST(renewed("kwok-1") != first);
}

BOOST_AUTO_TEST_CASE(a_stop_leaves_no_process_and_no_etcd_data) {
  control_plane_options options;
  options.kwok = true;
  control_plane cp(options);
  BOOST_REQUIRE_MESSAGE(cp.ok(), cp.error());
  auto group = cp.pid();
  auto url = cp.url();
  BOOST_TEST(cp.stop() == 0); // run.sh ends cleanly on SIGTERM
  // Every child ran in run.sh's process group: none is left. A child that exited as
  // run.sh did is an orphan for a moment, until init reaps it: allow that moment, not a
  // process that lives on.
  auto left = group_members(group);
  for (int i = 0; i < 50 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = group_members(group);
  }
  std::string named;
  for (auto& m : left)
    named += m + "; ";
  BOOST_TEST(left.empty(), "left in run.sh's group: " << named);
  BOOST_TEST(access((cp.dir() + "/etcd-data").c_str(), F_OK) != 0);
  BOOST_TEST(plain_get(url + "/readyz", {"", cp.ca_file()}).status == 0);
}

BOOST_AUTO_TEST_SUITE_END()
