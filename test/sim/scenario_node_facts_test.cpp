// Scenario node facts: nodes without virt-handler and a mixed host-CPU pool, reproducible
// for a seed, with VMIs only where virt-handler runs and migrations bound to the host model.
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "sim/target_pod_scheduler.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;

namespace {

scenario_options facts_scenario(uint64_t seed) {
  scenario_options o;
  o.nodes = 9;
  o.vmis = 60;
  o.nodes_without_virt_handler = 3;
  o.cpu_models = {"Cascadelake-Server", "Icelake-Server"};
  o.seed = seed;
  return o;
}

std::map<std::string, json> labels_by_node(populated_store& w) {
  std::map<std::string, json> out;
  for (auto& n : w.store.list("nodes").items)
    out[n["metadata"]["name"].get<std::string>()] = n["metadata"]["labels"];
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(scenario_node_facts)

BOOST_AUTO_TEST_CASE(nodes_without_virt_handler_and_cpu_models_are_reproducible) {
  populated_store a{facts_scenario(5)}, b{facts_scenario(5)}, c{facts_scenario(6)};
  auto la = labels_by_node(a);
  BOOST_CHECK(la == labels_by_node(b));
  BOOST_CHECK(la != labels_by_node(c));
  int without = 0;
  std::map<std::string, int> models;
  for (auto& [name, labels] : la) {
    if (!labels.contains("kubevirt.io/schedulable")) {
      ++without;
      for (auto& [k, v] : labels.items())
        BOOST_CHECK(k.find("node.kubevirt.io/") == std::string::npos);
      continue;
    }
    int host_models = 0;
    for (auto& [k, v] : labels.items())
      if (k.rfind("host-model-cpu.node.kubevirt.io/", 0) == 0) {
        ++host_models;
        auto model = k.substr(std::string("host-model-cpu.node.kubevirt.io/").size());
        ++models[model];
        BOOST_CHECK_EQUAL(labels.value("cpu-model-migration.node.kubevirt.io/" + model, ""), "true");
        BOOST_CHECK_EQUAL(labels.value("cpu-model.node.kubevirt.io/" + model, ""), "true");
      }
    BOOST_CHECK_EQUAL(host_models, 1);
  }
  BOOST_CHECK_EQUAL(without, 3);
  BOOST_CHECK_EQUAL(models["Cascadelake-Server"], 3);
  BOOST_CHECK_EQUAL(models["Icelake-Server"], 3);
  // VMIs run only where virt-handler does; replicas may sit anywhere.
  for (auto& v : a.vmis())
    BOOST_CHECK(la[v["status"]["nodeName"].get<std::string>()].contains("kubevirt.io/schedulable"));
}

BOOST_AUTO_TEST_CASE(without_the_flags_the_seed_places_vmis_as_before) {
  auto plain = facts_scenario(5);
  plain.nodes_without_virt_handler = 0;
  plain.cpu_models.clear();
  auto mixed = plain;
  mixed.cpu_models = {"Cascadelake-Server", "Icelake-Server"};
  populated_store a{plain}, b{mixed};
  std::map<std::string, std::string> pa, pb;
  for (auto& v : a.vmis())
    pa[v["metadata"]["name"]] = v["status"]["nodeName"];
  for (auto& v : b.vmis())
    pb[v["metadata"]["name"]] = v["status"]["nodeName"];
  BOOST_CHECK(pa == pb); // CPU labels draw nothing from the seed's generator
}

BOOST_AUTO_TEST_CASE(a_host_model_vmi_migrates_only_to_its_nodes_model) {
  populated_store w{facts_scenario(5)};
  auto labels = labels_by_node(w);
  auto nodes = w.store.list("nodes").items;
  auto vmi = w.vmis().front();
  auto source = vmi["status"]["nodeName"].get<std::string>();
  json source_node;
  for (auto& n : nodes)
    if (n["metadata"]["name"] == source)
      source_node = n;
  auto pod = target_pod_for(vmi, json::object(), &source_node);
  std::string model;
  for (auto& [k, v] : labels[source].items())
    if (k.rfind("host-model-cpu.node.kubevirt.io/", 0) == 0)
      model = k.substr(std::string("host-model-cpu.node.kubevirt.io/").size());
  BOOST_CHECK_EQUAL(pod.node_selector.value("cpu-model-migration.node.kubevirt.io/" + model, ""), "true");
  int fits = 0, refused = 0;
  for (auto& n : nodes) {
    auto ok = !scheduler_refusal(pod, n, {}).has_value();
    bool same_model = n["metadata"]["labels"].contains("host-model-cpu.node.kubevirt.io/" + model);
    BOOST_CHECK_EQUAL(ok, same_model);
    (ok ? fits : refused)++;
  }
  BOOST_CHECK_GT(fits, 0);
  BOOST_CHECK_GT(refused, 3); // the other model's nodes and those without virt-handler
}

BOOST_AUTO_TEST_CASE(too_many_nodes_without_virt_handler_is_named) {
  auto o = facts_scenario(5);
  o.nodes_without_virt_handler = 9;
  auto ok = validate(o);
  BOOST_REQUIRE(!ok);
  BOOST_CHECK(ok.err().message.find("virt-handler") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
