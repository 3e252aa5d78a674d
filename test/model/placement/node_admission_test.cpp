// docs/design.md §2.5 node admission, rule by rule: readiness, cordon, nodeSelector, required
// node affinity (every operator, matchFields), taints and tolerations, room; and the
// usage a node's room is computed from.
#include <boost/test/unit_test.hpp>

#include "model/placement/node_admission.hpp"
#include "model/ownership_labels.hpp"

using namespace schedopt;

namespace {

constexpr int64_t gi = int64_t{1} << 30;
constexpr int64_t mi = int64_t{1} << 20;

node make_node(const std::string& name) {
  node n;
  n.metadata.name = name;
  n.metadata.labels = {{"kubernetes.io/arch", "amd64"},
                       {"kubernetes.io/hostname", name},
                       {"zone", "a"},
                       {"cores", "32"},
                       {"kubevirt.io/schedulable", "true"}};
  n.ready = true;
  return n;
}

virtual_machine_instance make_vmi(const std::string& name, const std::string& node_name) {
  virtual_machine_instance v;
  v.metadata.namespace_ = "ns";
  v.metadata.name = name;
  v.node_name = node_name;
  v.phase = "Running";
  return v;
}

node_selector_term term(std::vector<node_selector_requirement> exprs,
                        std::vector<node_selector_requirement> fields = {}) {
  return {std::move(exprs), std::move(fields)};
}

std::string why(const virtual_machine_instance& v, const node& n, node_usage used = {}) {
  return refusal(v, n, used).value_or("admitted");
}

} // namespace

BOOST_AUTO_TEST_SUITE(node_admission)

BOOST_AUTO_TEST_CASE(an_unconstrained_vmi_runs_on_any_ready_uncordoned_node) {
  auto v = make_vmi("vm", "n0");
  auto n = make_node("n1");
  BOOST_CHECK_EQUAL(why(v, n), "admitted");
  n.unschedulable = true;
  BOOST_CHECK_EQUAL(why(v, n), "cordoned");
  n.ready = false;
  BOOST_CHECK_EQUAL(why(v, n), "not Ready"); // readiness is reported first
}

BOOST_AUTO_TEST_CASE(node_selector_needs_every_pair) {
  auto v = make_vmi("vm", "n0");
  auto n = make_node("n1");
  edit_constraints(v).node_selector = {{"kubernetes.io/arch", "amd64"}, {"zone", "a"}};
  BOOST_CHECK_EQUAL(why(v, n), "admitted");
  edit_constraints(v).node_selector["kubernetes.io/arch"] = "arm64";
  BOOST_CHECK_EQUAL(why(v, n), "nodeSelector kubernetes.io/arch=arm64 not matched");
  edit_constraints(v).node_selector = {{"gpu", "true"}}; // absent label
  BOOST_CHECK_EQUAL(why(v, n), "nodeSelector gpu=true not matched");
}

BOOST_AUTO_TEST_CASE(every_affinity_operator) {
  auto n = make_node("n1");
  struct row {
    node_selector_requirement req;
    bool field;
    bool expected;
  };
  const row rows[] = {
    {{"zone", "In", {"a", "b"}}, false, true},
    {{"zone", "In", {"b"}}, false, false},
    {{"missing", "In", {"a"}}, false, false},
    {{"zone", "NotIn", {"b"}}, false, true},
    {{"zone", "NotIn", {"a"}}, false, false},
    {{"missing", "NotIn", {"a"}}, false, true},
    {{"zone", "Exists", {}}, false, true},
    {{"missing", "Exists", {}}, false, false},
    {{"missing", "DoesNotExist", {}}, false, true},
    {{"zone", "DoesNotExist", {}}, false, false},
    {{"cores", "Gt", {"16"}}, false, true},
    {{"cores", "Gt", {"32"}}, false, false},
    {{"cores", "Lt", {"64"}}, false, true},
    {{"cores", "Lt", {"8"}}, false, false},
    {{"zone", "Gt", {"1"}}, false, false},    // not an integer label
    {{"missing", "Lt", {"1"}}, false, false},
    {{"cores", "Gt", {"1", "2"}}, false, false}, // Gt takes exactly one value
    {{"zone", "Near", {"a"}}, false, false},  // unknown operator
    {{"metadata.name", "In", {"n1"}}, true, true},
    {{"metadata.name", "NotIn", {"n1"}}, true, false},
    {{"metadata.name", "In", {"n2"}}, true, false},
    {{"zone", "In", {"a"}}, true, false}, // a field selector reads no labels
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.req.key << " " << r.req.op << (r.field ? " (field)" : "")) {
      BOOST_CHECK_EQUAL(matches(r.req, n, r.field), r.expected);
    }
}

BOOST_AUTO_TEST_CASE(affinity_terms_are_ored_requirements_anded) {
  auto n = make_node("n1");
  BOOST_CHECK(matches_required_affinity({}, n));
  BOOST_CHECK(!matches_required_affinity({term({})}, n)); // an empty term selects nothing
  BOOST_CHECK(matches_required_affinity(
    {term({{"zone", "In", {"b"}}}), term({{"zone", "In", {"a"}}})}, n));
  BOOST_CHECK(!matches_required_affinity(
    {term({{"zone", "In", {"a"}}, {"kubernetes.io/arch", "In", {"arm64"}}})}, n));
  BOOST_CHECK(matches_required_affinity(
    {term({{"zone", "In", {"a"}}}, {{"metadata.name", "In", {"n1"}}})}, n));
  BOOST_CHECK(!matches_required_affinity(
    {term({{"zone", "In", {"a"}}}, {{"metadata.name", "In", {"n2"}}})}, n));

  auto v = make_vmi("vm", "n0");
  edit_constraints(v).required_node_affinity = {term({{"zone", "NotIn", {"a"}}})};
  BOOST_CHECK_EQUAL(why(v, n), "required node affinity not matched");
}

BOOST_AUTO_TEST_CASE(tolerations_cover_noschedule_and_noexecute_taints) {
  taint db{"dedicated", "db", "NoSchedule"};
  BOOST_CHECK(tolerates({"dedicated", "", "db", "NoSchedule"}, db)); // Equal by default
  BOOST_CHECK(tolerates({"dedicated", "Equal", "db", ""}, db));      // any effect
  BOOST_CHECK(!tolerates({"dedicated", "Equal", "web", ""}, db));
  BOOST_CHECK(!tolerates({"dedicated", "Equal", "db", "NoExecute"}, db));
  BOOST_CHECK(tolerates({"dedicated", "Exists", "", ""}, db));
  BOOST_CHECK(tolerates({"", "Exists", "", ""}, db)); // tolerates everything
  BOOST_CHECK(!tolerates({"other", "Exists", "", ""}, db));

  auto n = make_node("n1");
  auto v = make_vmi("vm", "n0");
  n.taints = {{"soft", "", "PreferNoSchedule"}, db};
  BOOST_CHECK_EQUAL(why(v, n), "taint dedicated=db:NoSchedule not tolerated");
  edit_constraints(v).tolerations = {{"dedicated", "Equal", "db", "NoSchedule"}};
  BOOST_CHECK_EQUAL(why(v, n), "admitted"); // PreferNoSchedule never refuses
  n.taints.push_back({"node.kubernetes.io/unreachable", "", "NoExecute"});
  BOOST_CHECK_EQUAL(why(v, n), "taint node.kubernetes.io/unreachable:NoExecute not tolerated");
}

BOOST_AUTO_TEST_CASE(room_is_allocatable_minus_what_runs_there) {
  auto n = make_node("n1");
  auto v = make_vmi("vm", "n0");
  v.requests = {2000, 8 * gi};
  BOOST_CHECK_EQUAL(why(v, n, {100000, 100 * gi}), "admitted"); // allocatable not reported
  n.allocatable = {4000, 16 * gi};
  // 8Gi asks 8Gi/512 + 260Mi fixed + 8Mi per vCPU of virt-launcher overhead: 284Mi.
  BOOST_CHECK_EQUAL(why(v, n, {2000, 8 * gi - 284 * mi}), "admitted"); // exactly enough
  BOOST_CHECK_EQUAL(why(v, n, {2000, 8 * gi - 283 * mi}),
                    "8.2Gi memory free, needs 8Gi + 284Mi virt-launcher overhead");
  BOOST_CHECK_EQUAL(why(v, n, {0, 14 * gi}),
                    "2Gi memory free, needs 8Gi + 284Mi virt-launcher overhead");
  BOOST_CHECK_EQUAL(why(v, n, {0, 20 * gi}),
                    "0 memory free, needs 8Gi + 284Mi virt-launcher overhead"); // overcommitted
  BOOST_CHECK_EQUAL(why(v, n, {2500, 0}), "1500m CPU free, needs 2");
  v.requests = {std::nullopt, std::nullopt}; // requests nothing: fits anywhere
  BOOST_CHECK_EQUAL(why(v, n, {4000, 16 * gi}), "admitted");
}

BOOST_AUTO_TEST_CASE(constraints_are_reported_before_room) {
  auto n = make_node("n1");
  n.allocatable = {1000, gi};
  n.taints = {{"dedicated", "db", "NoExecute"}};
  auto v = make_vmi("vm", "n0");
  v.requests = {2000, 8 * gi};
  edit_constraints(v).required_node_affinity = {term({{"zone", "In", {"b"}}})};
  BOOST_CHECK_EQUAL(why(v, n), "required node affinity not matched");
  edit_constraints(v).required_node_affinity.clear();
  BOOST_CHECK_EQUAL(why(v, n), "taint dedicated=db:NoExecute not tolerated");
  edit_constraints(v).tolerations = {{"", "Exists", "", ""}};
  BOOST_CHECK_EQUAL(why(v, n), "1Gi memory free, needs 8Gi + 284Mi virt-launcher overhead");
}

BOOST_AUTO_TEST_CASE(usage_counts_placed_vmis_and_schedopt_migrations_pinned_there) {
  auto a = make_vmi("a", "n1");
  a.requests = {1000, 4 * gi};
  auto b = make_vmi("b", "n1");
  b.requests = {500, std::nullopt};
  auto done = make_vmi("done", "n1");
  done.phase = "Succeeded";
  done.requests = {8000, 8 * gi};
  auto c = make_vmi("c", "n2");
  c.requests = {2000, 2 * gi};
  auto pinned = [](const std::string& vmi, const std::string& to, const std::string& phase,
                   bool ours = true) {
    virtual_machine_instance_migration m;
    m.metadata.namespace_ = "ns";
    if (ours)
      m.metadata.labels[labels::managed_by] = labels::managed_by_value;
    m.vmi_name = vmi;
    m.phase = phase;
    m.added_node_selector[labels::hostname] = to;
    return m;
  };
  auto usage = usage_by_node(share_all(std::vector<virtual_machine_instance>{a, b, done, c}),
                             {pinned("c", "n1", "Scheduling"),  // counted on n1 too
                              pinned("a", "n3", "Succeeded"),   // final
                              pinned("b", "n3", "Running", false), // not schedopt's
                              pinned("a", "n1", "Running"),    // already there
                              pinned("gone", "n3", "Pending")}); // unknown VMI
  BOOST_CHECK_EQUAL(usage["n1"].cpu_millis, 3500);
  // a's 4Gi and c's 2Gi, each with its virt-launcher overhead (guest/512 + 268Mi);
  // b asks no memory, so its pod's overhead is not counted either.
  BOOST_CHECK_EQUAL(usage["n1"].memory_bytes, 6 * gi + (8 + 268 + 4 + 268) * mi);
  BOOST_CHECK_EQUAL(usage["n2"].cpu_millis, 2000);
  BOOST_CHECK(usage.count("n3") == 0);
}

// docs/design.md §3.3: a node KubeVirt drains is never a target, even for a VMI tolerating every
// taint; the cordon KubeVirt's drain comes with is refused first.
BOOST_AUTO_TEST_CASE(a_node_being_evacuated_is_refused) {
  auto v = make_vmi("vm", "n0");
  edit_constraints(v).tolerations = {{"", "Exists", "", ""}};
  auto tainted = make_node("n1");
  tainted.taints = {{kubevirt_drain_taint, "draining", "NoSchedule"}};
  BOOST_CHECK_EQUAL(why(v, tainted), "being evacuated (taint kubevirt.io/drain)");
  tainted.unschedulable = true;
  BOOST_CHECK_EQUAL(why(v, tainted), "cordoned");

  std::vector<node> nodes{make_node("n1"), make_node("n2")};
  auto leaving = make_vmi("other", "n2");
  leaving.evacuation_node_name = std::string{"n2"};
  mark_evacuating_nodes(nodes, share_all(std::vector{make_vmi("calm", "n1"), leaving}));
  BOOST_CHECK(!nodes[0].evacuating);
  BOOST_CHECK(nodes[1].evacuating);
  BOOST_CHECK_EQUAL(why(v, nodes[0]), "admitted");
  BOOST_CHECK_EQUAL(why(v, nodes[1]), "being evacuated (VMIs leaving it)");
  // The evacuation over: the next evaluation clears it.
  mark_evacuating_nodes(nodes, share_all(std::vector{make_vmi("other", "n1")}));
  BOOST_CHECK(!nodes[1].evacuating);
}

BOOST_AUTO_TEST_SUITE_END()

// KubeVirt's target pod for a host-model VM (the default) asks for the source node's host
// model and required features; a named model asks for that model; host-passthrough for
// nothing (migration.go prepareNodeSelectorForHostCpuModel, template.go).
BOOST_AUTO_TEST_SUITE(cpu_model)

BOOST_AUTO_TEST_CASE(a_host_model_vm_needs_a_node_accepting_its_source_nodes_model) {
  auto source = make_node("n0");
  source.metadata.labels["host-model-cpu.node.kubevirt.io/Cascadelake-Server"] = "true";
  source.metadata.labels["host-model-required-features.node.kubevirt.io/avx512f"] = "true";
  auto v = make_vmi("vm", "n0");
  auto other = make_node("n1");
  other.metadata.labels["cpu-model-migration.node.kubevirt.io/Icelake-Server"] = "true";
  BOOST_CHECK_EQUAL(refusal(v, other, {}, &source).value_or("admitted"),
                    "CPU label cpu-model-migration.node.kubevirt.io/Cascadelake-Server=true missing "
                    "(the VM's CPU model on its current node)");
  other.metadata.labels["cpu-model-migration.node.kubevirt.io/Cascadelake-Server"] = "true";
  BOOST_CHECK_EQUAL(refusal(v, other, {}, &source).value_or("admitted"),
                    "CPU label cpu-feature.node.kubevirt.io/avx512f=true missing "
                    "(the VM's CPU model on its current node)");
  other.metadata.labels["cpu-feature.node.kubevirt.io/avx512f"] = "true";
  BOOST_CHECK_EQUAL(refusal(v, other, {}, &source).value_or("admitted"), "admitted");
  // Without the source node nothing can be matched, so nothing is refused for it.
  auto bare = make_node("n2");
  BOOST_CHECK_EQUAL(refusal(v, bare, {}, nullptr).value_or("admitted"), "admitted");
}

BOOST_AUTO_TEST_CASE(a_named_model_needs_that_model_and_passthrough_needs_none) {
  auto source = make_node("n0");
  source.metadata.labels["host-model-cpu.node.kubevirt.io/Cascadelake-Server"] = "true";
  auto v = make_vmi("vm", "n0");
  v.cpu_model = "Skylake-Server";
  auto n = make_node("n1");
  BOOST_CHECK_EQUAL(refusal(v, n, {}, &source).value_or("admitted"),
                    "CPU label cpu-model.node.kubevirt.io/Skylake-Server=true missing "
                    "(the VM's CPU model on its current node)");
  n.metadata.labels["cpu-model.node.kubevirt.io/Skylake-Server"] = "true";
  BOOST_CHECK_EQUAL(refusal(v, n, {}, &source).value_or("admitted"), "admitted");
  v.cpu_model = "host-passthrough";
  BOOST_CHECK_EQUAL(refusal(v, make_node("n2"), {}, &source).value_or("admitted"), "admitted");
}

BOOST_AUTO_TEST_SUITE_END()
