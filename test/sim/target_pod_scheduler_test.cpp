// The simulator's own kube-scheduler filters for a migration target pod, and the pod
// KubeVirt builds: each case is a rule of kube-scheduler or KubeVirt the controller must
// anticipate, judged here without any controller code.
#include <boost/test/unit_test.hpp>

#include "sim/target_pod_scheduler.hpp"

using namespace schedopt::sim;

namespace {

json node(const std::string& name, json labels = json::object()) {
  labels["kubernetes.io/hostname"] = name;
  if (!labels.contains("kubevirt.io/schedulable"))
    labels["kubevirt.io/schedulable"] = "true";
  return {{"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable", {{"cpu", "8"}, {"memory", "16Gi"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json vmi(const std::string& memory = "2Gi") {
  return {{"metadata", {{"name", "vm1"}, {"namespace", "ns"}}},
          {"spec", {{"domain", {{"cpu", {{"cores", 2}, {"model", "host-model"}}},
                                {"resources", {{"requests", {{"cpu", "1"}, {"memory", memory}}}}}}}}}};
}

const json vmim = {{"spec", {{"vmiName", "vm1"}}}};

} // namespace

BOOST_AUTO_TEST_SUITE(target_pod_scheduler)

BOOST_AUTO_TEST_CASE(a_node_without_a_ready_virt_handler_is_refused) {
  auto source = node("a");
  auto pod = target_pod_for(vmi(), vmim, &source);
  BOOST_TEST(pod.node_selector["kubevirt.io/schedulable"] == "true");
  BOOST_TEST(!scheduler_refusal(pod, node("b"), {}).has_value());
  // The VM's own keys win over addedNodeSelector on a clash (createTargetPod, 1.6).
  json pinned = {{"spec", {{"vmiName", "vm1"}, {"addedNodeSelector", {{"kubevirt.io/schedulable", "false"}, {"zone", "z1"}}}}}};
  auto pinned_pod = target_pod_for(vmi(), pinned, &source);
  BOOST_TEST(pinned_pod.node_selector["kubevirt.io/schedulable"] == "true");
  BOOST_TEST(pinned_pod.node_selector["zone"] == "z1");
  auto down = node("c", {{"kubevirt.io/schedulable", "false"}});
  BOOST_TEST(scheduler_refusal(pod, down, {}).value_or("") == "node(s) didn't match Pod's node affinity/selector");
}

BOOST_AUTO_TEST_CASE(a_host_model_vmi_needs_its_source_hosts_cpu_model) {
  auto source = node("a", {{"host-model-cpu.node.kubevirt.io/Skylake-Client-IBRS", "true"},
                           {"host-model-required-features.node.kubevirt.io/vmx", "true"}});
  auto pod = target_pod_for(vmi(), vmim, &source);
  BOOST_TEST(pod.node_selector["cpu-model-migration.node.kubevirt.io/Skylake-Client-IBRS"] == "true");
  BOOST_TEST(pod.node_selector["cpu-feature.node.kubevirt.io/vmx"] == "true");
  auto same = node("b", {{"cpu-model-migration.node.kubevirt.io/Skylake-Client-IBRS", "true"},
                         {"cpu-feature.node.kubevirt.io/vmx", "true"}});
  BOOST_TEST(!scheduler_refusal(pod, same, {}).has_value());
  auto other = node("c", {{"cpu-model-migration.node.kubevirt.io/EPYC-Rome", "true"},
                          {"cpu-feature.node.kubevirt.io/vmx", "true"}});
  BOOST_TEST(scheduler_refusal(pod, other, {}).has_value());
  auto named = vmi();
  named["spec"]["domain"]["cpu"]["model"] = "EPYC-Rome";
  auto named_pod = target_pod_for(named, vmim, &source);
  BOOST_TEST(named_pod.node_selector["cpu-model.node.kubevirt.io/EPYC-Rome"] == "true");
  BOOST_TEST(!named_pod.node_selector.contains("cpu-model-migration.node.kubevirt.io/Skylake-Client-IBRS"));
}

BOOST_AUTO_TEST_CASE(the_pod_asks_for_virt_launchers_overhead_on_top_of_the_vmi) {
  auto pod = target_pod_for(vmi("2Gi"), vmim, nullptr);
  BOOST_TEST(pod.requests.cpu_millis == 1000);
  BOOST_TEST(pod.requests.memory_bytes > 2LL * 1024 * 1024 * 1024);
  BOOST_TEST(pod.requests.memory_bytes - 2LL * 1024 * 1024 * 1024 == launcher_memory_overhead(vmi("2Gi")));
  // 16Gi allocatable: a 16Gi VMI fits as far as its own request goes, not with overhead.
  auto big = target_pod_for(vmi("16Gi"), vmim, nullptr);
  BOOST_TEST(scheduler_refusal(big, node("b"), {}).value_or("") == "Insufficient memory");
  BOOST_TEST(scheduler_refusal(pod, node("b"), {0, 14LL * 1024 * 1024 * 1024}).value_or("") == "Insufficient memory");
  BOOST_TEST(scheduler_refusal(pod, node("b"), {7500, 0}).value_or("") == "Insufficient cpu");
}

BOOST_AUTO_TEST_CASE(taints_cordons_and_affinity_as_kube_scheduler_has_them) {
  auto pod = target_pod_for(vmi(), vmim, nullptr);
  auto tainted = node("t");
  tainted["spec"]["taints"] = json::array({{{"key", "dedicated"}, {"value", "db"}, {"effect", "NoSchedule"}},
                                           {{"key", "soft"}, {"effect", "PreferNoSchedule"}}});
  BOOST_TEST(scheduler_refusal(pod, tainted, {}).value_or("") == "node(s) had untolerated taint {dedicated: db}");
  pod.tolerations = json::array({{{"operator", "Exists"}}}); // empty key + Exists: every taint
  BOOST_TEST(!scheduler_refusal(pod, tainted, {}).has_value());
  auto cordoned = node("c");
  cordoned["spec"]["unschedulable"] = true;
  BOOST_TEST(!scheduler_refusal(pod, cordoned, {}).has_value()); // tolerated as well
  pod.tolerations = json::array();
  BOOST_TEST(scheduler_refusal(pod, cordoned, {}).value_or("") == "node(s) were unschedulable");

  pod.required_terms = json::array({json::object()}); // an empty term matches nothing
  BOOST_TEST(scheduler_refusal(pod, node("b"), {}).has_value());
  pod.required_terms = json::array(
      {{{"matchExpressions", json::array({{{"key", "rack"}, {"operator", "Gt"}, {"values", {"3"}}}})}},
       {{"matchFields", json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"z"}}}})}}});
  BOOST_TEST(!scheduler_refusal(pod, node("b", {{"rack", "4"}}), {}).has_value());
  BOOST_TEST(scheduler_refusal(pod, node("b", {{"rack", "3"}}), {}).has_value());
  BOOST_TEST(!scheduler_refusal(pod, node("z"), {}).has_value()); // the terms are ORed
}

BOOST_AUTO_TEST_SUITE_END()
