// The cluster's floors against a real API server answer: a request cannot lower the
// cool-off below minCoolOffPeriod, cannot queue beyond maxPendingRequests, cannot keep
// creating VMIMs past maxRunDuration, and never moves an opted-out VM.
#include <ctime>
#include <set>

#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"

using namespace schedopt::e2e;

namespace {

/// Reasons of the Events about the request `name`, as the API server holds them.
std::set<std::string> event_reasons(const sim_process& sim, const std::string& name) {
  std::set<std::string> out;
  for (auto& e : items(sim, "/api/v1/events"))
    if (e.value("/involvedObject/name"_json_pointer, std::string()) == name)
      out.insert(e.value("reason", std::string()));
  return out;
}

std::vector<vmi_truth> misplaced_of(const std::vector<vmi_truth>& truth) {
  std::vector<vmi_truth> out;
  for (auto& t : truth)
    if (t.misplaced && t.live_migratable && t.error.empty())
      out.push_back(t);
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(floors)

BOOST_AUTO_TEST_CASE(a_zero_cool_off_is_raised_to_the_cluster_floor) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "24", "--misplaced", "0.3", "--seed", "11",
                              "--migration-duration", "100ms"});
  auto misplaced = misplaced_of(s.truth());
  BOOST_REQUIRE(misplaced.size() >= 2);
  s.start_controller({"--cool-off-period", "10m", "--min-cool-off-period", "10m"});
  s.create_request("first", scenario::enabled_spec({{"coolOffPeriod", "0s"}}));
  auto first = s.wait_final("first");
  BOOST_TEST(counter(first, "successful") == (long long)misplaced.size());
  BOOST_TEST(event_reasons(s.sim(), "first").count("CoolOffClamped") == 1u);
  // Someone moves one of them off its replicas again, with a VMIM of their own.
  auto& moved = misplaced.front();
  auto vmi = get(s.sim(), "/apis/kubevirt.io/v1/namespaces/" + moved.ns + "/virtualmachineinstances/" + moved.name);
  auto now_on = vmi.value("/status/nodeName"_json_pointer, std::string());
  std::string away;
  for (auto& t : s.truth())
    if (t.ns == moved.ns && t.name == moved.name)
      for (int i = 1; i <= 6 && away.empty(); ++i) {
        char node[16];
        std::snprintf(node, sizeof node, "node-%02d", i);
        if (node != now_on && !t.best.count(node))
          away = node;
      }
  BOOST_REQUIRE(!away.empty());
  call(s.sim(), "POST", vmims_in(moved.ns),
       {{"apiVersion", "kubevirt.io/v1"}, {"kind", "VirtualMachineInstanceMigration"},
        {"metadata", {{"name", "by-hand"}}},
        {"spec", {{"vmiName", moved.name}, {"addedNodeSelector", {{"kubernetes.io/hostname", away}}}}}},
       201);
  // Done when the VMIM is: KubeVirt marks it Succeeded after the VMI reports the move
  // (virt-controller migration.go updateStatus), so the VMI's new node alone is too early.
  BOOST_REQUIRE(eventually(
    [&] {
      auto v = get(s.sim(), "/apis/kubevirt.io/v1/namespaces/" + moved.ns + "/virtualmachineinstances/" + moved.name);
      auto m = get(s.sim(), vmims_in(moved.ns) + "/by-hand");
      return v.value("/status/nodeName"_json_pointer, std::string()) == away
             && m.value("/status/phase"_json_pointer, std::string()) == "Succeeded";
    },
    std::chrono::seconds(60), std::chrono::milliseconds(100)));
  // A request asking for no cool-off at all still finds it cooling off: the floor holds.
  auto before = s.schedopt_vmims().size();
  s.create_request("second", scenario::enabled_spec({{"coolOffPeriod", "0s"}}));
  auto second = s.wait_final("second");
  auto details = details_by_vm(second);
  auto key = moved.ns + "/" + moved.name;
  BOOST_REQUIRE(details.count(key) == 1u);
  BOOST_TEST(starts_with(details[key].value("reason", std::string()), "CoolingOff: eligible after "),
             details[key].dump());
  BOOST_TEST(s.schedopt_vmims().size() == before);
}

BOOST_AUTO_TEST_CASE(a_request_beyond_max_pending_ends_failed_at_once) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "24", "--misplaced", "0.3", "--seed", "11",
                              "--migration-duration", "3s"});
  BOOST_REQUIRE(misplaced_of(s.truth()).size() >= 2);
  s.start_controller({"--max-pending-requests", "1", "--max-parallel-migrations", "1"});
  // Names in creation order: requests created within one second are ordered by name.
  s.create_request("q1-running", scenario::enabled_spec());
  BOOST_REQUIRE(eventually(
    [&] { return s.request("q1-running").value("/status/stage"_json_pointer, std::string()) == "Migrating"; },
    std::chrono::seconds(60), std::chrono::milliseconds(100)));
  s.create_request("q2-waiting", scenario::enabled_spec());
  BOOST_REQUIRE(eventually(
    [&] { return s.request("q2-waiting").value("/status/stage"_json_pointer, std::string()) == "Pending"; },
    std::chrono::seconds(30), std::chrono::milliseconds(100)));
  s.create_request("q3-one-too-many", scenario::enabled_spec());
  auto refused = s.wait_final("q3-one-too-many", std::chrono::seconds(30));
  BOOST_TEST(status_of_request(refused) == "Failed");
  BOOST_TEST(reason_of_request(refused) == "queue full: 1 requests pending");
  BOOST_TEST(event_reasons(s.sim(), "q3-one-too-many").count("QueueFull") == 1u);
  // The queue itself is untouched: the one waiting runs once the first is Final.
  BOOST_TEST(s.request("q1-running").value("/status/stage"_json_pointer, std::string()) != "Final");
  auto waiting = s.wait_final("q2-waiting");
  BOOST_TEST(status_of_request(waiting) != "Failed");
}

BOOST_AUTO_TEST_CASE(past_max_run_duration_no_vmim_is_created) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "40", "--misplaced", "0.5", "--seed", "11",
                              "--migration-duration", "2s"});
  auto misplaced = misplaced_of(s.truth());
  BOOST_REQUIRE(misplaced.size() >= 6);
  s.start_controller({"--max-run-duration", "3s", "--max-parallel-migrations", "1"});
  s.create_request("bounded", scenario::enabled_spec({{"maxParallelMigrations", 1}}));
  auto r = s.wait_final("bounded");
  BOOST_TEST(status_of_request(r) == "PartialSuccess");
  BOOST_TEST(starts_with(reason_of_request(r), "maxRunDuration 3s reached; "), reason_of_request(r));
  BOOST_TEST(event_reasons(s.sim(), "bounded").count("RunDeadlineReached") == 1u);
  // Judged by the API server's own objects: every VMIM was created within the budget
  // (creationTimestamp has whole seconds), and fewer than every misplaced VM got one.
  auto started = epoch_of(r.value("/status/startTimestamp"_json_pointer, std::string()));
  auto vmims = s.schedopt_vmims();
  BOOST_TEST(vmims.size() < misplaced.size());
  for (auto& v : vmims)
    BOOST_TEST(epoch_of(v.value("/metadata/creationTimestamp"_json_pointer, std::string())) <= started + 4,
               v.dump());
}

BOOST_AUTO_TEST_CASE(opted_out_vms_and_namespaces_are_never_migrated) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "40", "--misplaced", "0.5", "--seed", "11",
                              "--migration-duration", "100ms"});
  auto misplaced = misplaced_of(s.truth());
  BOOST_REQUIRE(misplaced.size() >= 4);
  // One VM labelled (on its VirtualMachine when it has one, as a user labels it), and
  // every VM of one namespace excluded by the cluster.
  std::set<std::string> opted_out;
  auto& labelled = misplaced.front();
  auto vmi_path = "/apis/kubevirt.io/v1/namespaces/" + labelled.ns + "/virtualmachineinstances/" + labelled.name;
  auto vmi = get(s.sim(), vmi_path);
  json label = {{"metadata", {{"labels", {{"schedopt.libopenstorage.org/exclude", "true"}}}}}};
  if (vmi["metadata"].contains("ownerReferences"))
    merge_patch(s.sim(), "/apis/kubevirt.io/v1/namespaces/" + labelled.ns + "/virtualmachines/"
                           + vmi["metadata"]["ownerReferences"][0].value("name", ""), label);
  else
    merge_patch(s.sim(), vmi_path, label);
  opted_out.insert(labelled.ns + "/" + labelled.name);
  std::string excluded;
  for (auto& t : misplaced)
    if (t.ns != labelled.ns)
      excluded = t.ns;
  BOOST_REQUIRE(!excluded.empty());
  // And one namespace labelled by its owner.
  std::string labelled_ns;
  for (auto& t : misplaced)
    if (t.ns != labelled.ns && t.ns != excluded)
      labelled_ns = t.ns;
  BOOST_REQUIRE(!labelled_ns.empty());
  merge_patch(s.sim(), "/api/v1/namespaces/" + labelled_ns, label);
  for (auto& t : misplaced)
    if (t.ns == excluded || t.ns == labelled_ns)
      opted_out.insert(t.ns + "/" + t.name);
  s.start_controller({"--exclude-namespaces", excluded});
  s.create_request("opt-out", scenario::enabled_spec());
  auto r = s.wait_final("opt-out");
  auto details = details_by_vm(r);
  for (auto& key : opted_out) {
    BOOST_TEST_CONTEXT(key) {
      BOOST_REQUIRE(details.count(key) == 1u);
      auto reason = details[key].value("reason", std::string());
      BOOST_TEST(starts_with(reason, "OptedOut: "));
      if (starts_with(key, labelled_ns + "/"))
        BOOST_TEST(starts_with(reason, "OptedOut: namespace " + labelled_ns + " labelled schedopt.libopenstorage.org/exclude=true"));
    }
  }
  BOOST_TEST(counter(r, "successful") == (long long)(misplaced.size() - opted_out.size()));
  for (auto& v : s.schedopt_vmims()) {
    auto key = v.value("/metadata/namespace"_json_pointer, std::string()) + "/"
               + v.value("/spec/vmiName"_json_pointer, std::string());
    BOOST_TEST(opted_out.count(key) == 0u, key);
  }
}

BOOST_AUTO_TEST_CASE(the_crd_bounds_what_a_request_may_carry) {
  scenario s("csi-topology", {"--nodes", "3", "--vmis", "3", "--seed", "11"});
  auto create = [&](const std::string& name, const json& spec) {
    json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
                 {"kind", "SchedulingOptimization"},
                 {"metadata", {{"name", name}}},
                 {"spec", spec}};
    return schedopt::test::http_request(s.sim(), "POST", requests_path, body.dump());
  };
  auto long_cool_off = create("long", scenario::enabled_spec({{"coolOffPeriod", std::string(60, '1') + "0000h"}}));
  BOOST_TEST(long_cool_off.status == 422);
  BOOST_TEST(long_cool_off.body.find("spec.vmHyperconvergence.coolOffPeriod") != std::string::npos,
             long_cool_off.body);
  auto huge_parallelism = create("huge", scenario::enabled_spec({{"maxParallelMigrations", 1001}}));
  BOOST_TEST(huge_parallelism.status == 422);
  BOOST_TEST(huge_parallelism.body.find("should be less than or equal to 1000") != std::string::npos,
             huge_parallelism.body);
  BOOST_TEST(create("fine", scenario::enabled_spec({{"coolOffPeriod", "90m"}, {"maxParallelMigrations", 1000}})).status
             == 201);
}

BOOST_AUTO_TEST_SUITE_END()
