// Writes whose answer is lost after the API server stored them (schedopt-sim's
// reset-after-commit answer fault: stored, audited, then the connection resets with no
// status line). Every VMIM create and the first Event creates and count bumps of a run
// lose their answers; the simulator's audit shows no VMIM and no Event made twice, and the
// request still ends exact.
#include <map>
#include <set>
#include <tuple>

#include <boost/test/unit_test.hpp>

#include "e2e/bad_input.hpp"
#include "e2e/controller_identity.hpp"

using namespace schedopt::e2e;

namespace {

json reset_after_commit(const std::string& method, const std::string& path, int count) {
  return {{"kind", "reset-after-commit"}, {"method", method}, {"path", path}, {"count", count}};
}

/// Audited writes (GET /admin/audit) by schedopt of `verb` on `resource`, by answer code.
std::map<int, int> audited_codes(const sim_process& sim, const std::string& verb, const std::string& resource) {
  std::map<int, int> out;
  for (auto& w : audit(sim).value("writes", json::array()))
    if (w.value("verb", "") == verb && w.value("resource", "") == resource
        && is_controller_identity(w.value("identity", "")))
      ++out[w.value("code", 0)];
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(duplicate_writes)

BOOST_AUTO_TEST_CASE(writes_whose_answer_was_lost_are_made_once) {
  scenario s("csi-topology", fleet_flags("37"));
  auto candidates = required_candidates(s.truth());
  std::map<std::string, int> per_namespace;
  for (auto& t : candidates)
    ++per_namespace[t.ns];
  std::vector<json> vmim_rules, event_rules;
  for (auto& [ns, n] : per_namespace) {
    // Every VMIM create of the run, and the first Events about its VMIs.
    vmim_rules.push_back(break_answers(s.sim(), reset_after_commit("POST", vmims_in(ns), n)));
    event_rules.push_back(break_answers(s.sim(), reset_after_commit("POST", "/api/v1/namespaces/" + ns + "/events", 2)));
  }
  // Events about the (cluster-scoped) request live in "default": creates and count bumps.
  event_rules.push_back(break_answers(s.sim(), reset_after_commit("POST", "/api/v1/namespaces/default/events", 2)));
  event_rules.push_back(break_answers(s.sim(), reset_after_commit("PATCH", "/api/v1/namespaces/default/events/", 2)));

  s.start_controller();
  s.create_request("lost-answers", scenario::enabled_spec());
  auto good = s.wait_final("lost-answers");

  for (auto& r : vmim_rules)
    BOOST_TEST(times_fired(s.sim(), r.value("id", 0)) == r.value("remaining", 0), "rule " << r.dump());
  int event_resets = 0;
  for (auto& r : event_rules)
    event_resets += times_fired(s.sim(), r.value("id", 0));
  BOOST_TEST(event_resets >= 2);

  // One VMIM per VMI for this request, each Succeeded: none was created twice.
  expect_every_candidate_migrated(s.sim(), good, candidates);
  auto vmim_creates = audited_codes(s.sim(), "create", "virtualmachineinstancemigrations");
  BOOST_TEST(vmim_creates[201] == (int)candidates.size());
  // Each replay met its VMIM: 409 AlreadyExists, or KubeVirt's admission (it runs before
  // the name is checked, as on kube-apiserver) refusing a second migration of the VMI.
  int refused_replays = 0;
  for (auto& [code, n] : vmim_creates)
    refused_replays += code == 201 ? 0 : n;
  BOOST_TEST(refused_replays >= (int)candidates.size(), "creates by answer: " << json(vmim_creates).dump());

  // No two Events of schedopt with one object, type, reason and message, and exactly one
  // create answered 201 for each Event there is.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int> same;
  int ours = 0;
  for (auto& e : items(s.sim(), "/api/v1/events")) {
    if (e.value("reportingComponent", "") != "schedopt")
      continue;
    ++ours;
    auto object = e.value("/involvedObject/kind"_json_pointer, std::string()) + "/"
                  + e.value("/involvedObject/namespace"_json_pointer, std::string()) + "/"
                  + e.value("/involvedObject/name"_json_pointer, std::string());
    int n = ++same[{object, e.value("type", ""), e.value("reason", ""), e.value("message", "")}];
    BOOST_TEST(n == 1, "a duplicate Event: " << e.dump());
  }
  auto event_creates = audited_codes(s.sim(), "create", "events");
  BOOST_TEST(ours >= (int)candidates.size()); // a Migrating event on every VMI at least
  BOOST_TEST(event_creates[201] == ours);
  BOOST_TEST(event_creates[409] >= 1, "no Event create was replayed");
  BOOST_TEST((s.controller().err().find("adopted the vmim a failed create made") != std::string::npos),
             "log: " << s.controller().log_tail(60));
  expect_same_controller(s);
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
