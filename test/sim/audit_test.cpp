// The simulator's audit: in-process for garbage collection stepped in simulated time,
// over the wire for identities, codes and the /admin/audit document.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "kubevirt_test_fixture.hpp"
#include "sim/audit_log.hpp"
#include "sim/kubevirt_controller.hpp"
#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt;
using namespace schedopt::sim;
using namespace schedopt::sim::testing;
using namespace schedopt::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string controller_agent = "schedopt/0.0.0-test (replica-audit-a)";
std::string vmim_path(const std::string& ns) {
  return "/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstancemigrations";
}

json vmim_record(const json& audit, const std::string& uid) {
  for (const auto& r : audit["vmims"])
    if (r["uid"] == uid)
      return r;
  return nullptr;
}

json vmims_of(const json& audit, const std::string& vmi) {
  json out = json::array();
  for (const auto& r : audit["vmims"])
    if (r["vmi"] == vmi)
      out.push_back(r);
  return out;
}

/// The writes of the audit that touched `name`, in order.
std::vector<json> writes_for(const json& audit, const std::string& name) {
  std::vector<json> out;
  for (const auto& w : audit["writes"])
    if (w["name"] == name)
      out.push_back(w);
  return out;
}

bool is_rfc3339_millis(const std::string& s) {
  // 2026-01-02T03:04:05.678Z
  return s.size() == 24 && s[4] == '-' && s[10] == 'T' && s[19] == '.' && s.back() == 'Z';
}

std::vector<std::string> with_agent(const std::string& agent) {
  return {"User-Agent: " + agent};
}

http_reply get_audit(const sim_process& sim, const std::string& query = {}) {
  return http_request(sim, "GET", "/admin/audit" + query);
}

/// A simulator whose migrations finish in about a second.
sim_process& fast_sim() {
  static sim_process sim({"--nodes", "3", "--vmis", "4", "--seed", "11", "--migration-duration", "100ms"});
  return sim;
}

} // namespace

BOOST_AUTO_TEST_SUITE(audit_log_suite)

BOOST_AUTO_TEST_CASE(records_survive_garbage_collection_and_name_their_creator) {
  populated_store w{[] {
    scenario_options o;
    o.nodes = 4;
    o.vmis = 4;
    o.seed = 5;
    return o;
  }()};
  auto audit = std::make_shared<audit_log>();
  audit->attach(w.store);
  kubevirt_controller_options fast;
  fast.stages = default_migration_stages(10ms, 50ms);
  kubevirt_controller c{w.store, fast};
  auto now = std::chrono::system_clock::now();
  auto vmi = w.vmis().front();
  auto vmi_name = vmi["metadata"]["name"].get<std::string>();
  auto vmi_ns = vmi["metadata"]["namespace"].get<std::string>();
  std::vector<std::string> uids;
  for (int i = 0; i < 7; ++i) {
    auto source = w.vmi(vmi_ns, vmi_name)["status"]["nodeName"].get<std::string>();
    auto made = [&] {
      // As the API server does around a request: the VMIM is credited to the client.
      client_identity_scope identity(i == 0 ? std::string{"kubectl/v1.30"} : controller_agent);
      return w.migrate(vmi);
    }();
    BOOST_REQUIRE(made);
    auto uid = (*made)["metadata"]["uid"].get<std::string>();
    uids.push_back(uid);
    auto r = vmim_record(audit->to_json(), uid);
    BOOST_REQUIRE(!r.is_null());
    BOOST_TEST(r["sourceNode"] == source); // known from the VMI before KubeVirt says so
    BOOST_TEST(r["phase"] == "");
    for (int k = 0; k < 20 && phase_of(w.vmim(*made)) != "Succeeded"; ++k)
      c.tick(now += 100ms);
    BOOST_REQUIRE_EQUAL(phase_of(w.vmim(*made)), "Succeeded");
  }
  c.tick(now += 100ms);
  BOOST_TEST(w.vmims().size() == 5u); // KubeVirt's GC kept five
  auto doc = audit->to_json();
  auto records = vmims_of(doc, vmi_name);
  BOOST_REQUIRE_EQUAL(records.size(), 7u);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    BOOST_TEST(r["uid"] == uids[i]);
    BOOST_TEST(r["namespace"] == vmi_ns);
    BOOST_TEST(r["phase"] == "Succeeded");
    BOOST_TEST(is_rfc3339_millis(r["createdAt"].get<std::string>()));
    BOOST_TEST(is_rfc3339_millis(r["finishedAt"].get<std::string>()));
    BOOST_TEST(r["targetNode"] != "");
    BOOST_TEST(r["targetNode"] != r["sourceNode"]);
    BOOST_TEST(r["deleted"] == (i < 2)); // the two oldest were garbage-collected
    BOOST_TEST(r["createdBy"] == (i == 0 ? "kubectl/v1.30" : controller_agent));
  }
  // Not through HTTP and not in a request scope: credited to the simulator itself.
  auto other = w.vmis()[1];
  auto made = w.migrate(other);
  BOOST_REQUIRE(made);
  BOOST_TEST(vmim_record(audit->to_json(), (*made)["metadata"]["uid"])["createdBy"] == "schedopt-sim");
  BOOST_TEST(doc["writes"].empty()); // in-process writes are not HTTP
}

BOOST_AUTO_TEST_CASE(caps_drop_the_oldest_and_since_pages_writes) {
  auto audit = std::make_shared<audit_log>(10, 3);
  for (int i = 0; i < 5; ++i)
    audit->record_write({std::chrono::system_clock::now(), "create", "configmaps", "", "default",
                         "cm-" + std::to_string(i), "ua", 201, ""});
  uint64_t next = 0;
  auto all = audit->to_json(0, &next);
  BOOST_TEST(next == 5u);
  BOOST_TEST(audit->writes_dropped() == 2u);
  BOOST_REQUIRE_EQUAL(all["writes"].size(), 3u);
  BOOST_TEST(all["writes"][0]["name"] == "cm-2");
  auto later = audit->to_json(4, &next);
  BOOST_REQUIRE_EQUAL(later["writes"].size(), 1u);
  BOOST_TEST(later["writes"][0]["name"] == "cm-4");
  BOOST_TEST(audit->to_json(5)["writes"].empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wire_audit)

BOOST_AUTO_TEST_CASE(vmim_over_http_is_followed_to_success_and_past_deletion) {
  auto& sim = fast_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto vmis = http_request(sim, "GET", "/apis/kubevirt.io/v1/virtualmachineinstances").json();
  BOOST_REQUIRE(!vmis["items"].empty());
  auto vmi = vmis["items"][0];
  auto vmi_name = vmi["metadata"]["name"].get<std::string>();
  auto ns = vmi["metadata"]["namespace"].get<std::string>();
  auto source = vmi["status"]["nodeName"].get<std::string>();
  json body = {{"apiVersion", "kubevirt.io/v1"},
               {"kind", "VirtualMachineInstanceMigration"},
               {"metadata",
                {{"generateName", vmi_name + "-schedopt-"},
                 {"labels", {{"schedopt.libopenstorage.org/request-uid", "req-uid-1"}}}}},
               {"spec", {{"vmiName", vmi_name}}}};
  auto created = http_request(sim, "POST", vmim_path(ns), body.dump(), "application/json", "\x01",
                              with_agent(controller_agent));
  BOOST_REQUIRE_EQUAL(created.status, 201);
  auto name = created.json()["metadata"]["name"].get<std::string>();
  auto uid = created.json()["metadata"]["uid"].get<std::string>();

  json record;
  for (int i = 0; i < 100; ++i) {
    record = vmim_record(get_audit(sim).json(), uid);
    if (!record.is_null() && record["phase"] == "Succeeded")
      break;
    std::this_thread::sleep_for(100ms);
  }
  BOOST_REQUIRE(!record.is_null());
  BOOST_TEST(record["namespace"] == ns);
  BOOST_TEST(record["name"] == name);
  BOOST_TEST(record["vmi"] == vmi_name);
  BOOST_TEST(record["requestUid"] == "req-uid-1");
  BOOST_TEST(record["createdBy"] == controller_agent);
  BOOST_TEST(record["sourceNode"] == source);
  BOOST_TEST(record["phase"] == "Succeeded");
  BOOST_TEST(record["targetNode"] != "");
  BOOST_TEST(record["targetNode"] != source);
  BOOST_TEST(is_rfc3339_millis(record["createdAt"].get<std::string>()));
  BOOST_TEST(is_rfc3339_millis(record["finishedAt"].get<std::string>()));
  BOOST_TEST(record["createdAt"].get<std::string>() <= record["finishedAt"].get<std::string>());
  // Taken up by KubeVirt (past Pending) between its creation and its end.
  BOOST_TEST(is_rfc3339_millis(record["handedOffAt"].get<std::string>()));
  BOOST_TEST(record["createdAt"].get<std::string>() <= record["handedOffAt"].get<std::string>());
  BOOST_TEST(record["handedOffAt"].get<std::string>() <= record["finishedAt"].get<std::string>());
  BOOST_TEST(record["deleted"] == false);

  auto removed = http_request(sim, "DELETE", vmim_path(ns) + "/" + name, {}, "application/json", "\x01",
                              with_agent("kubectl/v1.30 (cleanup)"));
  BOOST_REQUIRE_EQUAL(removed.status, 200);
  json after;
  for (int i = 0; i < 50; ++i) { // a finalizer may hold it until KubeVirt lets go
    after = get_audit(sim).json();
    record = vmim_record(after, uid);
    if (!record.is_null() && record["deleted"] == true)
      break;
    std::this_thread::sleep_for(100ms);
  }
  BOOST_REQUIRE(!record.is_null());
  BOOST_TEST(record["deleted"] == true);
  BOOST_TEST(record["phase"] == "Succeeded");
  BOOST_TEST(record["createdBy"] == controller_agent);

  auto writes = writes_for(after, name);
  BOOST_REQUIRE_EQUAL(writes.size(), 2u);
  BOOST_TEST(writes[0]["verb"] == "create");
  BOOST_TEST(writes[0]["resource"] == "virtualmachineinstancemigrations");
  BOOST_TEST(writes[0]["subresource"] == "");
  BOOST_TEST(writes[0]["namespace"] == ns);
  BOOST_TEST(writes[0]["identity"] == controller_agent);
  BOOST_TEST(writes[0]["code"] == 201);
  BOOST_TEST(is_rfc3339_millis(writes[0]["time"].get<std::string>()));
  BOOST_TEST(writes[1]["verb"] == "delete");
  BOOST_TEST(writes[1]["identity"] == "kubectl/v1.30 (cleanup)");
  BOOST_TEST(writes[1]["code"] == 200);
}

BOOST_AUTO_TEST_CASE(rejected_writes_are_recorded_with_their_code) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  uint64_t since = 0;
  {
    auto first = get_audit(sim);
    BOOST_REQUIRE_EQUAL(first.status, 200);
    auto pos = first.headers.find("X-Audit-Next-Since: ");
    BOOST_REQUIRE(pos != std::string::npos);
    since = std::stoull(first.headers.substr(pos + 20));
  }
  auto ghost = unique_name("ghost-vmi");
  json body = {{"apiVersion", "kubevirt.io/v1"},
               {"kind", "VirtualMachineInstanceMigration"},
               {"metadata", {{"name", ghost + "-mig"}}},
               {"spec", {{"vmiName", ghost}}}};
  auto refused = http_request(sim, "POST", vmim_path("vms-a"), body.dump(), "application/json", "\x01",
                              with_agent(controller_agent));
  BOOST_REQUIRE(refused.status / 100 == 4);
  auto cm = unique_name("audit-cm");
  auto unauthorized = http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", configmap_body(cm),
                                   "application/json", "wrong-token", with_agent("intruder/1.0"));
  BOOST_TEST(unauthorized.status == 401);
  auto gone = http_request(sim, "PATCH", "/api/v1/namespaces/default/configmaps/" + cm, R"({"data":{"a":"b"}})",
                           "application/merge-patch+json", "\x01", with_agent(controller_agent));
  BOOST_TEST(gone.status == 404);

  auto doc = get_audit(sim, "?since=" + std::to_string(since));
  BOOST_REQUIRE_EQUAL(doc.status, 200);
  auto writes = doc.json()["writes"];
  auto find = [&](const std::string& name) {
    for (const auto& w : writes)
      if (w["name"] == name)
        return w;
    return json(nullptr);
  };
  auto w1 = find(ghost + "-mig");
  BOOST_REQUIRE(!w1.is_null());
  BOOST_TEST(w1["verb"] == "create");
  BOOST_TEST(w1["resource"] == "virtualmachineinstancemigrations");
  BOOST_TEST(w1["code"] == refused.status);
  BOOST_TEST(w1["identity"] == controller_agent);
  std::vector<json> cm_writes;
  for (const auto& w : writes)
    if (w["name"] == cm)
      cm_writes.push_back(w);
  BOOST_REQUIRE_EQUAL(cm_writes.size(), 2u);
  BOOST_TEST(cm_writes[0]["code"] == 401);
  BOOST_TEST(cm_writes[0]["identity"] == "intruder/1.0");
  BOOST_TEST(cm_writes[0]["resource"] == "configmaps");
  BOOST_TEST(cm_writes[1]["verb"] == "patch");
  BOOST_TEST(cm_writes[1]["code"] == 404);
  // A refused create left no VMIM record behind.
  auto vmims = doc.json()["vmims"]; // a copy: json() is a temporary
  BOOST_REQUIRE(vmims.is_array());
  for (const auto& r : vmims)
    BOOST_TEST(r["vmi"] != ghost);

  BOOST_TEST(get_audit(sim, "?since=x").status == 400);
  BOOST_TEST(http_request(sim, "GET", "/admin/audit", {}, "application/json", "wrong-token").status == 401);
}

BOOST_AUTO_TEST_SUITE_END()
