// --constrained, --tainted-nodes, --full-nodes: the scenario's VMIs and nodes carry the
// constraints (judged with the model's admission rules), the rest of a seed's scenario
// is unchanged, and the simulated KubeVirt leaves a migration whose target pod cannot
// schedule in Scheduling with a FailedScheduling event, as KubeVirt does.
#include <boost/test/unit_test.hpp>

#include "kubevirt_test_fixture.hpp"
#include "model/decode.hpp"
#include "model/placement/node_admission.hpp"
#include "sim/kubevirt_controller.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace std::chrono_literals;

namespace {

scenario_options constrained(double fraction = 0.3, int tainted = 2, int full = 1) {
  scenario_options o;
  o.nodes = 8;
  o.vmis = 40;
  o.seed = 11;
  o.constrained = fraction;
  o.tainted_nodes = tainted;
  o.full_nodes = full;
  return o;
}

struct decoded_world {
  std::vector<virtual_machine_instance> vmis;
  std::map<std::string, node> nodes;
  std::map<std::string, json> vmi_json;

  explicit decoded_world(populated_store& w) {
    for (const auto& v : w.vmis()) {
      auto d = decode_vmi(v.dump());
      BOOST_REQUIRE(d);
      vmi_json[d->metadata.name] = v;
      vmis.push_back(std::move(*d));
    }
    for (const auto& n : w.store.list("nodes").items) {
      auto d = decode_node(n.dump());
      BOOST_REQUIRE(d);
      nodes[d->metadata.name] = std::move(*d);
    }
  }
};

bool placement_allows(const virtual_machine_instance& v, const node& n) {
  return !unmatched_node_selector(constraints_of(v).node_selector, n)
         && matches_required_affinity(constraints_of(v).required_node_affinity, n);
}

kubevirt_controller_options fast() {
  kubevirt_controller_options o;
  o.stages = default_migration_stages(10ms, 50ms);
  o.migrations.parallel_migrations_per_cluster = 10; // the caps are not under test here
  o.migrations.parallel_outbound_migrations_per_node = 10;
  o.seed = 3;
  return o;
}

std::vector<json> scheduling_events(populated_store& w, const json& vmim) {
  std::vector<json> out;
  for (const auto& e : w.store.list("events").items)
    if (e.value("reason", "") == "FailedScheduling"
        && e["involvedObject"].value("name", "") == vmim["metadata"].value("name", ""))
      out.push_back(e);
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(scheduling_constraints)

BOOST_AUTO_TEST_CASE(constrained_vmis_keep_their_node_and_exclude_a_replica_node) {
  populated_store w{constrained()};
  decoded_world d{w};
  int with_constraint = 0;
  for (const auto& v : d.vmis) {
    if (constraints_of(v).node_selector.empty() && constraints_of(v).required_node_affinity.empty())
      continue;
    ++with_constraint;
    BOOST_TEST_CONTEXT(v.metadata.name) {
      BOOST_CHECK(placement_allows(v, d.nodes.at(v.node_name)));
      int excluded = 0;
      for (const auto& set : replica_sets_of(w.store, w.storage, d.vmi_json.at(v.metadata.name)))
        for (const auto& n : set)
          excluded += n != v.node_name && !placement_allows(v, d.nodes.at(n));
      BOOST_CHECK_GT(excluded, 0);
    }
  }
  BOOST_CHECK_LE(with_constraint, 12); // llround(0.3 * 40)
  BOOST_CHECK_GE(with_constraint, 10); // a VMI whose replicas all sit on its node has none
  for (const auto& v : d.vmis) {
    BOOST_CHECK(v.requests.memory_bytes == int64_t{4} << 30);
    BOOST_CHECK(v.requests.cpu_millis == int64_t{100});
  }
}

BOOST_AUTO_TEST_CASE(tainted_nodes_are_tolerated_by_some_and_full_nodes_have_no_room) {
  populated_store w{constrained()};
  decoded_world d{w};
  std::vector<std::string> tainted, full;
  auto usage = usage_by_node(share_all(d.vmis), {});
  for (const auto& [name, n] : d.nodes) {
    BOOST_CHECK(n.metadata.labels.count("topology.kubernetes.io/zone"));
    if (!n.taints.empty()) {
      tainted.push_back(name);
      BOOST_CHECK_EQUAL(describe(n.taints.front()), "dedicated=vms:NoSchedule");
    }
    BOOST_REQUIRE(n.allocatable.memory_bytes);
    auto free = *n.allocatable.memory_bytes - usage[name].memory_bytes;
    if (free < (int64_t{4} << 30)) {
      full.push_back(name);
      // Every placed pod counted with its 284Mi of virt-launcher overhead, then half
      // a VMI's request left over.
      BOOST_CHECK_EQUAL(free, int64_t{2} << 30);
    } else {
      BOOST_CHECK_GE(free, int64_t{16} * (int64_t{4} << 30)); // plenty for migrations
    }
  }
  BOOST_CHECK_EQUAL(tainted.size(), 2u);
  BOOST_REQUIRE_EQUAL(full.size(), 1u);
  BOOST_CHECK(std::find(tainted.begin(), tainted.end(), full.front()) == tainted.end());
  int tolerating = 0;
  for (const auto& v : d.vmis) {
    bool tolerates_all = true;
    for (const auto& t : tainted)
      tolerates_all = tolerates_all && !untolerated_taint(constraints_of(v).tolerations, d.nodes.at(t));
    tolerating += tolerates_all;
    if (std::find(tainted.begin(), tainted.end(), v.node_name) != tainted.end())
      BOOST_CHECK(tolerates_all); // it was scheduled there
    if (v.node_name != full.front())
      BOOST_CHECK(refusal(v, d.nodes.at(full.front()), usage[full.front()]));
  }
  BOOST_CHECK_GT(tolerating, 0);
  BOOST_CHECK_LT(tolerating, 40);
}

BOOST_AUTO_TEST_CASE(the_flags_leave_the_rest_of_a_seeds_scenario_alone) {
  populated_store plain{constrained(0.0, 0, 0)};
  populated_store shaped{constrained()};
  auto a = plain.vmis();
  auto b = shaped.vmis();
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    BOOST_CHECK_EQUAL(a[i]["metadata"]["name"], b[i]["metadata"]["name"]);
    BOOST_CHECK_EQUAL(a[i]["status"]["nodeName"], b[i]["status"]["nodeName"]);
    BOOST_CHECK(replica_sets_of(plain.store, plain.storage, a[i])
                == replica_sets_of(shaped.store, shaped.storage, b[i]));
  }
  for (const auto& v : a)
    BOOST_CHECK(!v["spec"].contains("nodeSelector") && !v["spec"].contains("affinity")
                && !v["spec"].contains("tolerations"));
}

// A pin the VMI may not go to (full node, untolerated taint, excluded by its affinity)
// keeps the migration in Scheduling, and says why once; an admissible pin succeeds.
BOOST_AUTO_TEST_CASE(an_unschedulable_target_pod_keeps_the_migration_scheduling) {
  populated_store w{constrained(1.0, 2, 1)};
  w.store.register_type({"", "v1", "Event", "events", "event", "EventList", true, false, {"ev"}, {}, ""});
  decoded_world d{w};
  auto usage = usage_by_node(share_all(d.vmis), {});
  kubevirt_controller c{w.store, fast()};
  auto now = std::chrono::system_clock::now();
  auto step = [&](int ticks) {
    for (int i = 0; i < ticks; ++i)
      c.tick(now += 100ms);
  };
  struct pinned {
    std::string vmi, target, expect; // expect: a piece of the event message, "" = success
    json made;
  };
  std::vector<pinned> cases;
  std::set<std::string> used_vmis, sources, targets;
  auto add_case = [&](auto want) {
    for (const auto& v : d.vmis)
      for (const auto& [name, n] : d.nodes) {
        if (used_vmis.count(v.metadata.name) || name == v.node_name || !n.ready
            || sources.count(name) || targets.count(v.node_name))
          continue; // no case may change the room another case is judged by
        auto why = refusal(v, n, usage[name]);
        if (auto expect = want(why)) {
          used_vmis.insert(v.metadata.name);
          sources.insert(v.node_name);
          targets.insert(name);
          cases.push_back({v.metadata.name, name, *expect, {}});
          return;
        }
      }
    BOOST_FAIL("no VMI/node pair for a case");
  };
  auto when = [](const char* piece, const char* message) {
    return [=](const std::optional<std::string>& why) -> std::optional<std::string> {
      if (why && why->find(piece) != std::string::npos)
        return std::string{message};
      return std::nullopt;
    };
  };
  add_case(when("memory free", "Insufficient memory"));
  // kube-scheduler tainttoleration.go: "node(s) had untolerated taint {key: value}".
  add_case(when("taint dedicated=vms:NoSchedule", "untolerated taint {dedicated: vms}"));
  add_case(when("not matched", "didn't match Pod's node affinity/selector"));
  add_case([](const std::optional<std::string>& why) -> std::optional<std::string> {
    if (!why)
      return std::string{};
    return std::nullopt;
  });
  for (auto& k : cases) {
    auto made = w.migrate(w.vmi(d.vmi_json.at(k.vmi)["metadata"]["namespace"], k.vmi),
                          json{{"kubernetes.io/hostname", k.target}});
    BOOST_REQUIRE(made);
    k.made = *made;
  }
  step(60);
  for (const auto& k : cases) {
    BOOST_TEST_CONTEXT(k.vmi << " -> " << k.target) {
      auto m = w.vmim(k.made);
      auto events = scheduling_events(w, m);
      if (k.expect.empty()) {
        BOOST_CHECK_EQUAL(phase_of(m), "Succeeded");
        BOOST_CHECK_EQUAL(w.vmi(m["metadata"]["namespace"], k.vmi)["status"]["nodeName"], k.target);
        BOOST_CHECK(events.empty());
      } else {
        BOOST_CHECK_EQUAL(phase_of(m), "Scheduling");
        BOOST_CHECK(!m["status"]["migrationState"].contains("targetNode"));
        BOOST_REQUIRE_EQUAL(events.size(), 1u); // said once, not every tick
        auto message = events.front().value("message", "");
        BOOST_CHECK_MESSAGE(message.find(k.expect) != std::string::npos, message);
        BOOST_CHECK(message.rfind("target pod pending: 0/8 nodes are available: ", 0) == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
