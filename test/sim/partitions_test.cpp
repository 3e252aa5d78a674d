// Network partitions (sim/partitions.hpp): the rule table, `serve --partition-*` flags, and
// on the wire a cut client's requests held unanswered and never applied while everyone
// else is served, then its connection cut; DELETE /admin/partitions heals at once.
#include <future>

#include <boost/test/unit_test.hpp>

#include "sim/partitions.hpp"
#include "sim/sim_options.hpp"
#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

using steady = std::chrono::steady_clock;

struct heal_after {
  ~heal_after() { test::http_request(test::shared_sim(), "DELETE", "/admin/partitions"); }
};

test::http_reply as_agent(const std::string& agent, const std::string& method, const std::string& path,
                          const std::string& body = {}) {
  return test::http_request(test::shared_sim(), method, path, body, "application/json", "\x01",
                            {"User-Agent: " + agent});
}

std::string config_map(const std::string& name) {
  return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}}.dump();
}

long long ms_since(steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t).count();
}

} // namespace

BOOST_AUTO_TEST_SUITE(partitions_table)

BOOST_AUTO_TEST_CASE(a_rule_cuts_matching_user_agents_only_in_its_window) {
  network_partitions table;
  auto now = steady::now();
  auto rule = partition_rule_from_json({{"userAgent", "(host_42)"}, {"after", "1s"}, {"for", "2s"}}, now);
  BOOST_REQUIRE_MESSAGE(rule, (rule ? "" : rule.err().message));
  auto added = table.add(*rule);
  BOOST_CHECK_EQUAL(added.id, 1);
  BOOST_CHECK(!table.cut_until("schedopt/0.1 (host_42)", now + 500ms));
  auto until = table.cut_until("schedopt/0.1 (host_42)", now + 1500ms);
  BOOST_REQUIRE(until);
  BOOST_CHECK(*until == now + 3s);
  BOOST_CHECK(!table.cut_until("schedopt/0.1 (host_421)", now + 1500ms)); // another replica
  BOOST_CHECK(!table.cut_until("schedopt/0.1 (host_42)", now + 3s));      // healed
  table.count_held("schedopt/0.1 (host_42)", now + 1500ms);
  BOOST_CHECK_EQUAL(table.list().at(0).held, 1);
  table.clear();
  BOOST_CHECK(!table.cut_until("schedopt/0.1 (host_42)", now + 1500ms));
}

BOOST_AUTO_TEST_CASE(bad_rules_are_refused_with_the_reason) {
  auto now = steady::now();
  auto no_agent = partition_rule_from_json({{"for", "1s"}}, now);
  BOOST_REQUIRE(!no_agent);
  BOOST_CHECK_EQUAL(no_agent.err().message, "userAgent must be a non-empty string");
  auto no_length = partition_rule_from_json({{"userAgent", "x"}}, now);
  BOOST_REQUIRE(!no_length);
  BOOST_CHECK_EQUAL(no_length.err().message, "for must be a duration above 0");
  auto bad_after = partition_rule_from_json({{"userAgent", "x"}, {"for", "1s"}, {"after", 5}}, now);
  BOOST_REQUIRE(!bad_after);
  BOOST_CHECK_EQUAL(bad_after.err().message, "after must be a Go duration string");
}

BOOST_AUTO_TEST_CASE(serve_flags_and_their_help) {
  auto cmd = parse_sim_command_line({"serve", "--kubeconfig-out", "/tmp/k", "--partition-user-agent",
                                     "(host_7)", "--partition-after", "5s", "--partition-for", "10s"});
  BOOST_REQUIRE_MESSAGE(cmd, (cmd ? "" : cmd.err().message));
  BOOST_CHECK_EQUAL(cmd->serve.partition.user_agent, "(host_7)");
  BOOST_CHECK(cmd->serve.partition.after == 5s);
  BOOST_CHECK(cmd->serve.partition.length == 10s);
  auto no_length = parse_sim_command_line({"serve", "--kubeconfig-out", "/tmp/k", "--partition-user-agent", "x"});
  BOOST_REQUIRE(!no_length);
  BOOST_CHECK_EQUAL(no_length.err().message, "--partition-user-agent needs --partition-for DUR above 0");
  auto no_agent = parse_sim_command_line({"serve", "--kubeconfig-out", "/tmp/k", "--partition-for", "1s"});
  BOOST_REQUIRE(!no_agent);
  BOOST_CHECK_EQUAL(no_agent.err().message, "--partition-after and --partition-for need --partition-user-agent S");
  for (const char* flag : {"--partition-user-agent S", "--partition-after DUR", "--partition-for DUR",
                           "/admin/partitions"})
    BOOST_CHECK_MESSAGE(serve_usage().find(flag) != std::string::npos, flag << " missing from --help");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(partitions_wire)

BOOST_AUTO_TEST_CASE(a_cut_client_is_held_unanswered_and_its_write_never_applied) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  heal_after cleanup;
  auto agent = "partition-test/1 (" + test::unique_name("cut") + ")";
  auto name = test::unique_name("partitioned-cm");
  auto bad = test::http_request(sim, "POST", "/admin/partitions", json{{"userAgent", ""}}.dump());
  BOOST_CHECK_EQUAL(bad.status, 400);
  auto added = test::http_request(sim, "POST", "/admin/partitions",
                                  json{{"userAgent", agent}, {"for", "1500ms"}}.dump());
  BOOST_REQUIRE_EQUAL(added.status, 201);
  BOOST_CHECK(added.json().value("active", false));

  auto sent = steady::now();
  auto held = std::async(std::launch::async, [&] {
    return as_agent(agent, "POST", "/api/v1/namespaces/default/configmaps", config_map(name));
  });
  // Everyone else is served meanwhile.
  std::this_thread::sleep_for(200ms);
  auto other = as_agent("partition-test/1 (free)", "GET", "/api/v1/namespaces/default/configmaps");
  BOOST_CHECK_EQUAL(other.status, 200);
  BOOST_CHECK(held.wait_for(0s) == std::future_status::timeout);

  auto reply = held.get();
  auto took = ms_since(sent);
  BOOST_TEST_MESSAGE("held " << took << " ms");
  BOOST_CHECK_GE(took, 1300);
  BOOST_CHECK_LT(took, 5000);
  BOOST_CHECK_EQUAL(reply.status, 0); // the connection cut: no answer to take
  // The server never saw the write: not applied, not audited.
  BOOST_CHECK_EQUAL(as_agent("x", "GET", "/api/v1/namespaces/default/configmaps/" + name).status, 404);
  auto audit = test::http_request(sim, "GET", "/admin/audit").json();
  for (auto& w : audit.value("writes", json::array()))
    BOOST_CHECK_MESSAGE(w.value("identity", "") != agent, "audited: " << w.dump());
  auto listed = test::http_request(sim, "GET", "/admin/partitions").json()["partitions"];
  BOOST_REQUIRE_EQUAL(listed.size(), 1u);
  BOOST_CHECK_EQUAL(listed[0].value("held", 0), 1);
  BOOST_CHECK(!listed[0].value("active", true));
  // Healed: the same client is answered again.
  BOOST_CHECK_EQUAL(as_agent(agent, "POST", "/api/v1/namespaces/default/configmaps", config_map(name)).status,
                    201);
}

BOOST_AUTO_TEST_CASE(delete_heals_at_once) {
  auto& sim = test::shared_sim();
  BOOST_REQUIRE(sim.ok());
  heal_after cleanup;
  auto agent = "partition-test/1 (" + test::unique_name("cut") + ")";
  BOOST_REQUIRE_EQUAL(test::http_request(sim, "POST", "/admin/partitions",
                                         json{{"userAgent", agent}, {"after", "300ms"}, {"for", "30s"}}.dump())
                        .status,
                      201);
  // Before the window opens the client is served.
  BOOST_CHECK_EQUAL(as_agent(agent, "GET", "/api/v1/namespaces").status, 200);
  std::this_thread::sleep_for(400ms);
  auto sent = steady::now();
  auto held = std::async(std::launch::async, [&] { return as_agent(agent, "GET", "/api/v1/namespaces"); });
  std::this_thread::sleep_for(300ms);
  BOOST_CHECK(held.wait_for(0s) == std::future_status::timeout);
  BOOST_CHECK_EQUAL(test::http_request(sim, "DELETE", "/admin/partitions").status, 200);
  auto reply = held.get();
  BOOST_CHECK_LT(ms_since(sent), 3000);
  BOOST_CHECK_EQUAL(reply.status, 0);
  BOOST_CHECK_EQUAL(as_agent(agent, "GET", "/api/v1/namespaces").status, 200);
}

BOOST_AUTO_TEST_SUITE_END()
