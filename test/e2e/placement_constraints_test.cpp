// docs/design.md §2.5 end to end: with nodeSelectors, required affinities, taints and full nodes
// in the cluster, every migration schedopt creates schedules and succeeds (none sits in
// Scheduling until migrationTimeout), and a VM with no admissible target is skipped
// NoTargetNode naming why each best node was refused. Judged from the simulator's
// objects as they were before the run and its audit record.
#include <boost/test/unit_test.hpp>

#include "e2e/e2e_fixture.hpp"
#include "e2e/placement_facts.hpp"

using namespace schedopt::e2e;

namespace {

constexpr long long vmi_memory_request = 4LL << 30; // every generated VMI asks 4Gi
// What KubeVirt adds to its virt-launcher pod (renderresources.go GetMemoryOverhead) for a
// generated VMI of 2 vCPUs: 4Gi/512 + 220Mi fixed + 2 x 8Mi + 8Mi IOThread + 32Mi video.
constexpr long long launcher_overhead = 284LL << 20;
constexpr long long pod_memory = vmi_memory_request + launcher_overhead;

/// A memory quantity in bytes, whatever suffix it carries: kube-apiserver stores the
/// canonical form ("64Gi" for the "67108864Ki" a scenario wrote), the simulator what it got.
long long quantity_bytes(const std::string& quantity) {
  static const std::pair<const char*, long long> suffixes[] = {
    {"Ki", 1LL << 10}, {"Mi", 1LL << 20}, {"Gi", 1LL << 30}, {"Ti", 1LL << 40},
    {"k", 1000LL}, {"M", 1000LL * 1000}, {"G", 1000LL * 1000 * 1000}, {"T", 1000LL * 1000 * 1000 * 1000}};
  for (auto& [suffix, scale] : suffixes) {
    std::string s = suffix;
    if (quantity.size() > s.size() && quantity.compare(quantity.size() - s.size(), s.size(), s) == 0)
      return std::stoll(quantity.substr(0, quantity.size() - s.size())) * scale;
  }
  BOOST_REQUIRE_MESSAGE(!quantity.empty() && std::isdigit(static_cast<unsigned char>(quantity[0])),
                        "not a memory quantity: " << quantity);
  return std::stoll(quantity);
}

std::vector<std::string> split(const std::string& text, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (auto next = text.find(sep); next != std::string::npos; next = text.find(sep, at)) {
    out.push_back(text.substr(at, next - at));
    at = next + sep.size();
  }
  out.push_back(text.substr(at));
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(placement_constraints)

BOOST_AUTO_TEST_CASE(migrations_schedule_and_unplaceable_vms_are_skipped_with_per_node_reasons) {
  scenario s("csi-topology", {"--nodes", "6", "--vmis", "40", "--misplaced", "0.3", "--seed", "5",
                              "--constrained", "0.3", "--tainted-nodes", "2", "--full-nodes", "1",
                              "--migration-duration", "300ms", "--parallel-migrations-per-cluster", "10"});
  auto truth = s.truth();
  std::map<std::string, json> vmis, nodes;
  std::map<std::string, long long> placed; // virt-launcher pod memory per node
  for (auto& v : items(s.sim(), vmis_path)) {
    vmis[v["metadata"].value("namespace", "") + "/" + v["metadata"].value("name", "")] = v;
    placed[v.value("/status/nodeName"_json_pointer, std::string())] += pod_memory;
  }
  for (auto& n : items(s.sim(), "/api/v1/nodes"))
    nodes[n["metadata"].value("name", "")] = n;
  auto is_full = [&](const std::string& node) {
    auto allocatable = quantity_bytes(nodes.at(node).value("/status/allocatable/memory"_json_pointer, std::string()));
    return allocatable - placed[node] < pod_memory;
  };

  s.start_controller({"--migration-timeout", "20s"});
  s.create_request("constrained", scenario::enabled_spec());
  auto r = s.wait_final("constrained", std::chrono::seconds(25));

  // Every VMIM schedopt created, by the cluster's record: Succeeded, to a node the VMI
  // may run on; none deleted (a timeout would delete it).
  int created = 0;
  for (auto& m : audit(s.sim()).value("vmims", json::array())) {
    if (m.value("requestUid", "").empty())
      continue; // not schedopt's
    ++created;
    BOOST_TEST_CONTEXT("vmim " << m.value("namespace", "") << "/" << m.value("name", "")) {
      BOOST_TEST(m.value("phase", "") == "Succeeded");
      BOOST_TEST(!m.value("deleted", false));
      auto key = m.value("namespace", "") + "/" + m.value("vmi", "");
      auto target = m.value("targetNode", "");
      BOOST_REQUIRE(vmis.count(key) == 1 && nodes.count(target) == 1);
      BOOST_TEST(selector_matches(vmis[key], nodes[target]));
      BOOST_TEST((!node_tainted(nodes[target]) || tolerates_dedicated(vmis[key])));
      BOOST_TEST(!is_full(target));
    }
  }
  BOOST_TEST(created > 0);
  BOOST_TEST(counter(r, "successful") == created);
  BOOST_TEST(counter(r, "failed") == 0);
  for (auto& m : s.schedopt_vmims())
    BOOST_TEST(m.value("/status/phase"_json_pointer, std::string()) == "Succeeded");

  // NoTargetNode skips: every best node but the current one, each with a reason the
  // objects bear out.
  std::map<std::string, const vmi_truth*> by_key;
  for (auto& t : truth)
    by_key[t.key()] = &t;
  int no_target = 0;
  std::set<std::string> kinds;
  for (auto& [key, d] : details_by_vm(r)) {
    auto full = d.value("reason", "");
    auto reason = reason_core(full);
    if (!starts_with(reason, "NoTargetNode: "))
      continue;
    ++no_target;
    BOOST_TEST_CONTEXT(key << ": " << full) {
      BOOST_TEST(d.value("status", "") == "Skipped");
      BOOST_TEST(full.size() <= 256u);
      BOOST_REQUIRE(by_key.count(key) == 1);
      const auto& vmi = vmis.at(key);
      std::set<std::string> named;
      for (auto& entry : split(reason.substr(14), "; ")) {
        auto colon = entry.find(": ");
        BOOST_REQUIRE(colon != std::string::npos);
        auto node = entry.substr(0, colon);
        auto why = entry.substr(colon + 2);
        named.insert(node);
        BOOST_REQUIRE(nodes.count(node) == 1);
        const auto& n = nodes.at(node);
        if (why == "taint dedicated=vms:NoSchedule not tolerated") {
          kinds.insert("taint");
          BOOST_TEST((node_tainted(n) && !tolerates_dedicated(vmi)));
        } else if (starts_with(why, "nodeSelector ")) {
          kinds.insert("nodeSelector");
          BOOST_TEST(!selector_matches(vmi, n));
        } else if (why == "required node affinity not matched") {
          kinds.insert("affinity");
          BOOST_TEST(vmi.contains(json::json_pointer("/spec/affinity/nodeAffinity")));
        } else if (why.find(" memory free, needs 4Gi + 284Mi virt-launcher overhead") != std::string::npos) {
          kinds.insert("room");
          BOOST_TEST(is_full(node));
        } else {
          BOOST_ERROR("unexpected refusal: " << why);
        }
      }
      std::set<std::string> expected = by_key[key]->best;
      expected.erase(by_key[key]->node);
      BOOST_TEST((named == expected || reason.size() > 240u)); // all of them unless capped
    }
  }
  BOOST_TEST_MESSAGE(created << " migrations, " << no_target << " NoTargetNode skips, "
                             << kinds.size() << " kinds of refusal");
  BOOST_TEST(no_target > 0);
  BOOST_TEST(kinds.size() >= 3u); // seed 5 refuses for taints, selectors, affinity and room
  BOOST_TEST(counter(r, "skipped") >= no_target);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
