// docs/design.md §9 evaluation for pods: who is considered, verdicts, the filter order
// with each skip's exact reason, evaluation errors, the per-run cap and room held.
#include <boost/test/unit_test.hpp>

#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "model/kinds/pod_hyperconvergence/pod_test_world.hpp"

using namespace schedopt;
using namespace schedopt::test::pods;

namespace {

const pod_evaluation& find(const evaluation_result& r, const std::string& name) {
  for (const auto& p : r.pods)
    if (p.name == name)
      return p;
  BOOST_FAIL("no evaluation for " + name);
  return r.pods.front();
}

} // namespace

BOOST_AUTO_TEST_SUITE(pod_evaluate)

BOOST_AUTO_TEST_CASE(only_running_bound_pods_that_are_not_virt_launchers_are_considered) {
  pod_world w;
  w.add("db-0", "n1", {"n1"});
  w.add("db-1", "", {"n1"}).phase = "Pending";
  w.add("db-2", "n1", {"n1"}).phase = "Succeeded";
  w.add("db-3", "n1", {"n1"}).metadata.deletion_timestamp = "2026-11-30T11:59:00Z";
  w.add("virt-launcher-vm-abcde", "n1", {"n2"}).metadata.labels["kubevirt.io"] = "virt-launcher";
  w.add("launcher-2", "n1", {"n2"}, "VirtualMachineInstance", "vm", "ns");
  w.pods.back().metadata.owner_references.back().api_version = "kubevirt.io/v1";
  auto r = w.run();
  BOOST_CHECK_EQUAL(r.counts.considered, 1);
  BOOST_CHECK_EQUAL(r.counts.virt_launcher, 2);
  BOOST_CHECK_EQUAL(r.pods.size(), 1u);
  BOOST_CHECK_EQUAL(r.pods[0].name, "db-0");
  BOOST_CHECK(is_virt_launcher(w.pods[4]));
  BOOST_CHECK(!is_considered(w.pods[5]));
}

BOOST_AUTO_TEST_CASE(pods_are_classified_by_the_vm_kinds_scores) {
  pod_world w;
  w.add("db-0", "n1", {"n1", "n2"});     // on a best node
  w.add("db-1", "n1", {"n2"});           // none of its replicas here
  auto& semi = w.add("db-2", "n1", {"n1", "n2"});
  semi.claim_names.push_back("logs-db-2"); // second volume only on n2: n2 scores 2, n1 1
  w.pvcs["ns/logs-db-2"] = w.pvcs["ns/data-db-2"];
  w.pvcs["ns/logs-db-2"].metadata.name = "logs-db-2";
  w.pvcs["ns/logs-db-2"].volume_name = "pv-logs";
  w.pvs["pv-logs"] = w.pvs["pv-db-2"];
  w.pvs["pv-logs"].metadata.name = "pv-logs";
  w.in.replicas["pv-logs"] = {"n2"};
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "db-0").verdict, "hyperconverged");
  BOOST_CHECK_EQUAL(find(r, "db-1").verdict, "non");
  BOOST_CHECK_EQUAL(find(r, "db-2").verdict, "semi");
  BOOST_CHECK_EQUAL(find(r, "db-2").best_score, 2);
  BOOST_CHECK_EQUAL(find(r, "db-2").current_score, 1);
  BOOST_CHECK_EQUAL(r.counts.hyperconverged, 1);
  BOOST_CHECK_EQUAL(r.counts.semi, 1);
  BOOST_CHECK_EQUAL(r.counts.non, 1);
  BOOST_REQUIRE_EQUAL(r.eligible.size(), 2u);
  BOOST_CHECK_EQUAL(r.eligible[0].target->metadata.name, "db-1");
  BOOST_CHECK(r.eligible[0].best_nodes == std::vector<std::string>{"n2"});
  BOOST_CHECK(r.eligible[0].target_nodes == std::vector<std::string>{"n2"});
  BOOST_CHECK_EQUAL(r.eligible[0].owner.name, "db");
}

BOOST_AUTO_TEST_CASE(pods_without_driver_volumes_are_no_candidates) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.pvs["pv-db-0"].csi_driver = "ebs.csi.aws.com";
  w.pods.push_back(make_pod("ns", "stateless", "n1"));
  auto r = w.run();
  BOOST_CHECK_EQUAL(r.counts.no_driver_volumes, 2);
  BOOST_CHECK_EQUAL(find(r, "db-0").verdict, "none");
  BOOST_CHECK(r.eligible.empty());
  BOOST_CHECK(r.skipped.empty());
}

BOOST_AUTO_TEST_CASE(lookup_errors_are_evaluation_errors_in_kubernetes_words) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.pvcs.erase("ns/data-db-0");
  w.add("db-1", "n1", {"n2"});
  w.in.replicas.erase("pv-db-1");
  w.add("db-2", "n1", {"n2"});
  w.in.replica_errors["pv-db-2"] = "volume pv-db-2 not found in Portworx";
  auto r = w.run();
  BOOST_REQUIRE_EQUAL(r.skipped.size(), 3u);
  BOOST_CHECK_EQUAL(r.skipped[0].reason,
                    "EvaluationError: persistentvolumeclaims \"data-db-0\" not found");
  BOOST_CHECK_EQUAL(r.skipped[1].reason,
                    "EvaluationError: storage driver returned no replica nodes for volume \"pv-db-1\"");
  BOOST_CHECK_EQUAL(r.skipped[2].reason, "EvaluationError: volume pv-db-2 not found in Portworx");
  BOOST_CHECK(r.skipped[0].status == pod_result::skipped);
  BOOST_CHECK_EQUAL(r.counts.errors, 3);
  BOOST_CHECK_EQUAL(r.counts.skipped, 3);
}

BOOST_AUTO_TEST_CASE(opted_out_comes_first_from_namespace_pod_or_owner) {
  pod_world w;
  w.add("a", "n1", {"n2"}, "", "", "excluded"); // bare too: OptedOut still wins
  w.add("b", "n1", {"n2"}, "StatefulSet", "db", "labelled");
  w.add("c", "n1", {"n2"}).metadata.labels[opt_out_label] = "true";
  w.add("d", "n1", {"n2"}, "StatefulSet", "quiet");
  w.stateful_sets.push_back(make_stateful_set("ns", "quiet"));
  w.stateful_sets.back().metadata.labels[opt_out_label] = "true";
  w.in.excluded_namespaces = {"excluded"};
  w.in.opted_out_namespaces = {"labelled"};
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "a").reason, "OptedOut: namespace excluded is excluded");
  BOOST_CHECK_EQUAL(find(r, "b").reason,
                    "OptedOut: namespace labelled labelled schedopt.libopenstorage.org/exclude=true");
  BOOST_CHECK_EQUAL(find(r, "c").reason, "OptedOut: labelled schedopt.libopenstorage.org/exclude=true");
  BOOST_CHECK_EQUAL(find(r, "d").reason,
                    "OptedOut: StatefulSet quiet labelled schedopt.libopenstorage.org/exclude=true");
  BOOST_CHECK_EQUAL(r.counts.skipped, 4);
}

BOOST_AUTO_TEST_CASE(no_controller_names_what_controls_the_pod) {
  pod_world w;
  w.add("bare", "n1", {"n2"}, "");
  w.add("fluentd-x", "n1", {"n2"}, "DaemonSet", "fluentd");
  w.add("backup-1-abc", "n1", {"n2"}, "Job", "backup-1", "ns");
  w.pods.back().metadata.owner_references.back().api_version = "batch/v1";
  w.add("gone-0", "n1", {"n2"}, "StatefulSet", "gone");
  w.stateful_sets.push_back(make_stateful_set("ns", "gone"));
  w.stateful_sets.back().metadata.deletion_timestamp = "2026-11-30T11:59:00Z";
  w.add("web-1-x", "n1", {"n2"}, "ReplicaSet", "web-1");
  w.replica_sets.push_back(make_replica_set("ns", "web-1", 0));
  // SchedulerNotStorageAware too, but NoController comes first.
  w.pods[0].scheduler_name = "";
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "bare").reason, "NoController: no controller");
  BOOST_CHECK_EQUAL(find(r, "fluentd-x").reason, "NoController: controlled by DaemonSet fluentd");
  BOOST_CHECK_EQUAL(find(r, "backup-1-abc").reason, "NoController: controlled by Job backup-1");
  BOOST_CHECK_EQUAL(find(r, "gone-0").reason, "NoController: StatefulSet gone is being deleted");
  BOOST_CHECK_EQUAL(find(r, "web-1-x").reason, "NoController: ReplicaSet web-1 is scaled to 0");
}

BOOST_AUTO_TEST_CASE(an_owner_missing_from_the_snapshot_is_an_evaluation_error) {
  pod_world w;
  w.add("cache-0", "n1", {"n2"}, "StatefulSet", "cache");
  w.add("web-x", "n1", {"n2"}, "ReplicaSet", "web-1");
  w.add("db-0", "n1", {"n2"});
  w.stateful_sets[0].metadata.uid = "uid-of-a-new-db"; // re-created since: db-0 is an orphan
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "cache-0").reason, "EvaluationError: statefulsets.apps \"cache\" not found");
  BOOST_CHECK_EQUAL(find(r, "web-x").reason, "EvaluationError: replicasets.apps \"web-1\" not found");
  BOOST_CHECK_EQUAL(find(r, "db-0").reason, "EvaluationError: statefulsets.apps \"db\" not found");
  BOOST_CHECK_EQUAL(r.counts.errors, 3);
}

BOOST_AUTO_TEST_CASE(schedulers_not_storage_aware_are_skipped_and_default_is_named) {
  pod_world w;
  w.add("db-0", "n1", {"n2"}).scheduler_name = "";
  w.add("db-1", "n1", {"n2"}).scheduler_name = "volcano";
  w.add("db-2", "n1", {"n2"}).scheduler_name = "my-stork";
  w.in.storage_aware_schedulers = {"stork", "my-stork"};
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "db-0").reason,
                    "SchedulerNotStorageAware: schedulerName default-scheduler is not storage-aware "
                    "(storageAwareSchedulers: stork, my-stork)");
  BOOST_CHECK_EQUAL(find(r, "db-1").scheduler, "volcano");
  BOOST_CHECK(find(r, "db-2").disp == pod_disposition::eligible);
}

BOOST_AUTO_TEST_CASE(cooling_off_reads_the_owners_record) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.add("web-x", "n1", {"n2"}, "ReplicaSet", "web-1");
  w.replica_sets.push_back(make_replica_set("ns", "web-1"));
  w.stateful_sets[0].metadata.annotations[default_pod_cool_off_annotation] = "2026-11-30T11:30:00Z";
  w.replica_sets[0].metadata.annotations[default_pod_cool_off_annotation] = "2026-11-30T10:59:59Z";
  w.in.cool_off_period = std::chrono::hours(1);
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "db-0").reason, "CoolingOff: eligible after 2026-11-30T12:30:00Z");
  BOOST_CHECK(find(r, "web-x").disp == pod_disposition::eligible); // its hour is over
}

BOOST_AUTO_TEST_CASE(this_requests_own_record_does_not_hold_its_other_pods_back) {
  pod_world w;
  w.add("db-1", "n1", {"n2"});
  auto& a = w.stateful_sets[0].metadata.annotations;
  a[default_pod_cool_off_annotation] = "2026-11-30T11:59:00Z";
  a[cool_off_request_annotation(default_pod_cool_off_annotation)] = "req-1";
  w.in.request_uid = "req-1";
  auto r = w.run();
  BOOST_CHECK(find(r, "db-1").disp == pod_disposition::eligible);
  w.in.request_uid = "req-2";
  r = w.run();
  BOOST_CHECK_EQUAL(find(r, "db-1").reason, "CoolingOff: eligible after 2026-11-30T12:59:00Z");
}

BOOST_AUTO_TEST_CASE(an_unreadable_record_is_ignored_with_a_warning) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.stateful_sets[0].metadata.annotations[default_pod_cool_off_annotation] = "yesterday";
  auto r = w.run();
  BOOST_CHECK(find(r, "db-0").disp == pod_disposition::eligible);
  BOOST_REQUIRE_EQUAL(r.warnings.size(), 1u);
  BOOST_CHECK(r.warnings[0].find("StatefulSet ns/db") != std::string::npos);
  BOOST_CHECK(r.warnings[0].find("yesterday") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_target_node_says_why_each_best_node_refused) {
  pod_world w;
  w.in.nodes = {make_node("n1"), make_node("n2", false), make_node("n3", true, true)};
  w.add("db-0", "n1", {"n2", "n3"});
  w.add("db-1", "n1", {"n2", "n4"});
  auto r = w.run();
  BOOST_CHECK_EQUAL(find(r, "db-0").reason, "NoTargetNode: n2: not Ready; n3: cordoned");
  BOOST_CHECK_EQUAL(find(r, "db-1").reason, "NoTargetNode: n2: not Ready; n4: not found");
}

BOOST_AUTO_TEST_CASE(the_filters_apply_in_the_documented_order) {
  // One pod blocked by every filter at once: OptedOut wins; lifting each in turn shows
  // the next.
  pod_world w;
  w.in.nodes = {make_node("n1"), make_node("n2", false)};
  auto& p = w.add("db-0", "n1", {"n2"});
  p.metadata.labels[opt_out_label] = "true";
  p.scheduler_name = "default-scheduler";
  w.stateful_sets[0].metadata.annotations[default_pod_cool_off_annotation] = "2026-11-30T11:59:00Z";
  std::vector<std::string> seen;
  seen.push_back(find(w.run(), "db-0").reason);
  w.pods[0].metadata.labels.erase(opt_out_label);
  auto owners = w.pods[0].metadata.owner_references;
  w.pods[0].metadata.owner_references.clear();
  seen.push_back(find(w.run(), "db-0").reason);
  w.pods[0].metadata.owner_references = owners;
  seen.push_back(find(w.run(), "db-0").reason);
  w.pods[0].scheduler_name = "stork";
  seen.push_back(find(w.run(), "db-0").reason);
  w.stateful_sets[0].metadata.annotations.clear();
  seen.push_back(find(w.run(), "db-0").reason);
  std::vector<std::string> kinds;
  for (const auto& s : seen)
    kinds.push_back(s.substr(0, s.find(':')));
  std::vector<std::string> expected{"OptedOut", "NoController", "SchedulerNotStorageAware",
                                    "CoolingOff", "NoTargetNode"};
  BOOST_CHECK_EQUAL_COLLECTIONS(kinds.begin(), kinds.end(), expected.begin(), expected.end());
}

BOOST_AUTO_TEST_CASE(the_cap_leaves_the_rest_outstanding_in_namespace_name_order) {
  pod_world w;
  w.add("db-2", "n1", {"n2"});
  w.add("db-0", "n1", {"n2"});
  w.add("db-1", "n1", {"n2"});
  w.add("q-0", "n1", {"n2"}, "StatefulSet", "q", "a-first");
  w.stateful_sets.push_back(make_stateful_set("a-first", "q"));
  w.in.max_per_run = 2;
  auto r = w.run();
  BOOST_REQUIRE_EQUAL(r.eligible.size(), 2u);
  BOOST_CHECK_EQUAL(r.eligible[0].target->metadata.name, "q-0");
  BOOST_CHECK_EQUAL(r.eligible[1].target->metadata.name, "db-0");
  BOOST_CHECK(r.outstanding == (std::vector<std::string>{"ns/db-1", "ns/db-2"}));
  BOOST_CHECK_EQUAL(r.counts.outstanding, 2);
  BOOST_CHECK(find(r, "db-2").disp == pod_disposition::outstanding);
}

BOOST_AUTO_TEST_CASE(an_eligible_pod_holds_room_on_its_targets) {
  pod_world w;
  w.in.nodes[1].allocatable.memory_bytes = 3LL << 30;
  w.add("db-0", "n1", {"n2"}).requests.memory_bytes = 2LL << 30;
  w.add("db-1", "n1", {"n2"}).requests.memory_bytes = 2LL << 30;
  auto r = w.run();
  BOOST_CHECK(find(r, "db-0").disp == pod_disposition::eligible);
  BOOST_CHECK_EQUAL(find(r, "db-1").reason, "NoTargetNode: n2: 1Gi memory free, needs 2Gi");
}

BOOST_AUTO_TEST_CASE(pods_this_request_handled_are_not_judged_again) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.add("db-1", "n1", {"n2"});
  w.in.handled = {"ns/db-0"};
  auto r = w.run();
  BOOST_CHECK_EQUAL(r.counts.considered, 1);
  BOOST_REQUIRE_EQUAL(r.eligible.size(), 1u);
  BOOST_CHECK_EQUAL(r.eligible[0].target->metadata.name, "db-1");
}

BOOST_AUTO_TEST_CASE(a_controller_run_lists_only_candidates_and_skips) {
  pod_world w;
  w.add("db-0", "n1", {"n1"});
  w.add("db-1", "n1", {"n2"});
  w.add("bare", "n1", {"n2"}, "");
  w.pods.push_back(make_pod("ns", "stateless", "n1"));
  w.in.every_pod = false;
  auto r = w.run();
  BOOST_CHECK_EQUAL(r.pods.size(), 2u);
  BOOST_CHECK_EQUAL(r.counts.considered, 4);
  BOOST_CHECK_EQUAL(r.counts.hyperconverged, 1);
}

BOOST_AUTO_TEST_CASE(the_driver_is_asked_about_each_volume_once) {
  pod_world w;
  w.add("db-0", "n1", {"n2"});
  w.add("db-1", "n1", {"n2"}).claim_names.push_back("data-db-0"); // shares db-0's claim
  w.pods.push_back(make_pod("ns", "pending", "", {"data-db-0"}, "Pending"));
  auto shared = share_all(w.pods);
  auto vols = driver_volumes_of(shared, index_of(w.pvcs), index_of(w.pvs), owned_by_px);
  BOOST_REQUIRE_EQUAL(vols.size(), 2u); // the Pending pod is not considered
  BOOST_CHECK_EQUAL(vols[1].pvs.size(), 2u);
  auto query = volumes_to_query(vols);
  BOOST_REQUIRE_EQUAL(query.size(), 2u);
  BOOST_CHECK_EQUAL(query[0]->metadata.name, "pv-db-0");
  BOOST_CHECK_EQUAL(query[1]->metadata.name, "pv-db-1");
}

BOOST_AUTO_TEST_SUITE_END()
