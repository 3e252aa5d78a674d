// `schedopt status`: the CRD's printer columns, kubectl's age format, and the progress of
// a running request from its status counters and its VMIMs.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/ownership_labels.hpp"
#include "model/status_report.hpp"

using namespace schedopt;

namespace {

timestamp at(const char* text) {
  return *parse_rfc3339(text);
}

scheduling_optimization request(const std::string& name, const std::string& created,
                                request_stage stage, request_status status,
                                int64_t successful, int64_t failed, int64_t skipped) {
  scheduling_optimization so;
  so.metadata.name = name;
  so.metadata.uid = "uid-" + name;
  so.metadata.creation_timestamp = created;
  so.status.stage = stage;
  so.status.status = status;
  so.status.kinds[vm_hyperconvergence_kind] = kind_status_block{successful, skipped, failed, {}};
  return so;
}

virtual_machine_instance_migration vmim(const std::string& name, const std::string& request_uid,
                                        const std::string& phase) {
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.name = name;
  if (!request_uid.empty())
    m.metadata.labels[labels::request_uid] = request_uid;
  m.phase = phase;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(status_report)

BOOST_AUTO_TEST_CASE(progress_counts_the_requests_own_unfinished_migrations) {
  auto so = request("so-1", "2026-11-30T12:00:00Z", request_stage::migrating,
                    request_status::in_progress,
                    3, 1, 7);
  std::vector<virtual_machine_instance_migration> vmims{
    vmim("a", "uid-so-1", "Running"),   vmim("b", "uid-so-1", "Scheduling"),
    vmim("c", "uid-so-1", "Pending"),   vmim("d", "uid-so-1", ""),
    vmim("e", "uid-so-1", "Succeeded"), vmim("f", "uid-so-1", "Failed"),
    vmim("g", "uid-other", "Running"),  vmim("h", "", "Running")};
  auto p = progress_of(so, vmims);
  BOOST_CHECK_EQUAL(p.migrated, 3);
  BOOST_CHECK_EQUAL(p.failed, 1);
  BOOST_CHECK_EQUAL(p.skipped, 7);
  BOOST_CHECK_EQUAL(p.in_flight, 2); // Running, Scheduling
  BOOST_CHECK_EQUAL(p.pending, 2);   // Pending, not yet phased
  BOOST_CHECK_EQUAL(progress_of(scheduling_optimization{}, vmims).in_flight, 0);
}

BOOST_AUTO_TEST_CASE(table_has_the_crd_printer_columns_and_the_running_progress) {
  auto now = at("2026-11-30T14:00:00Z");
  auto done = request("so-old", "2026-11-30T11:30:00Z", request_stage::final_,
                      request_status::successful,
                      4, 0, 1);
  auto running = request("so-new", "2026-11-30T13:59:20Z", request_stage::migrating,
                         request_status::in_progress, 3, 0, 12);
  scheduling_optimization fresh;
  fresh.metadata.name = "so-fresh";
  fresh.metadata.creation_timestamp = "2026-11-30T13:59:58Z";
  std::vector<status_entry> entries{
    {done, std::nullopt},
    {running, request_progress{3, 0, 12, 2, 1}},
    {fresh, request_progress{}}};
  const std::string expected =
    "NAME       STAGE       STATUS       SUCCESSFUL   FAILED   SKIPPED   AGE\n"
    "so-old     Final       Successful   4            0        1         150m\n"
    "so-new     Migrating   InProgress   3            0        12        40s\n"
    "so-fresh   -           -            -            -        -         2s\n"
    "\n"
    "In progress:\n"
    "so-new (Migrating): 3 migrated, 0 failed, 12 skipped, 2 in flight, 1 pending\n"
    "so-fresh (not yet picked up): 0 migrated, 0 failed, 0 skipped, 0 in flight, 0 pending\n";
  BOOST_CHECK_EQUAL(render_status_table(entries, now), expected);
  BOOST_CHECK_EQUAL(render_status_table({}, now), "No SchedulingOptimizations found.\n");
}

BOOST_AUTO_TEST_CASE(age_reads_as_kubectl_prints_it) {
  auto now = at("2026-11-30T12:00:00Z");
  auto ago = [&](std::chrono::seconds s) { return format_rfc3339(now - s); };
  using std::chrono::seconds;
  BOOST_CHECK_EQUAL(human_age(ago(seconds(0)), now), "0s");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(119)), now), "119s");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(200)), now), "3m20s");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(300)), now), "5m");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(3 * 3600 + 600)), now), "3h10m");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(30 * 3600)), now), "30h");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(52 * 3600)), now), "2d4h");
  BOOST_CHECK_EQUAL(human_age(ago(seconds(20 * 86400)), now), "20d");
  BOOST_CHECK_EQUAL(human_age(format_rfc3339(now + seconds(5)), now), "<invalid>");
  BOOST_CHECK_EQUAL(human_age("yesterday", now), "<unknown>");
}

BOOST_AUTO_TEST_CASE(json_carries_progress_only_while_not_final) {
  auto done = request("so-old", "2026-11-30T11:30:00Z", request_stage::final_,
                      request_status::successful,
                      4, 0, 1);
  auto running = request("so-new", "2026-11-30T13:59:20Z", request_stage::migrating,
                         request_status::in_progress, 3, 0, 12);
  auto j = nlohmann::json::parse(
    render_status_json({{done, std::nullopt}, {running, request_progress{3, 0, 12, 2, 1}}}));
  BOOST_REQUIRE_EQUAL(j.size(), 2u);
  BOOST_CHECK_EQUAL(j[0]["name"], "so-old");
  BOOST_CHECK_EQUAL(j[0]["stage"], "Final");
  BOOST_CHECK_EQUAL(j[0]["successful"], 4);
  BOOST_CHECK(!j[0].contains("progress"));
  BOOST_CHECK_EQUAL(j[1]["progress"]["inFlight"], 2);
  BOOST_CHECK_EQUAL(j[1]["progress"]["pending"], 1);
  BOOST_CHECK_EQUAL(j[1]["progress"]["skipped"], 12);
}

// VMIMs that could not be listed leave in flight and pending unknown, not zero.
BOOST_AUTO_TEST_CASE(unlisted_migrations_are_unknown_not_zero) {
  auto running = request("so-new", "2026-11-30T13:59:20Z", request_stage::migrating,
                         request_status::in_progress, 3, 0, 12);
  request_progress p{3, 0, 12, 0, 0, false};
  auto table = render_status_table({{running, p}}, at("2026-11-30T14:00:00Z"));
  BOOST_CHECK(table.find("so-new (Migrating): 3 migrated, 0 failed, 12 skipped, in flight and "
                         "pending unknown\n")
              != std::string::npos);
  auto j = nlohmann::json::parse(render_status_json({{running, p}}));
  BOOST_CHECK(j[0]["progress"]["inFlight"].is_null());
  BOOST_CHECK(j[0]["progress"]["pending"].is_null());
  BOOST_CHECK_EQUAL(j[0]["progress"]["migrated"], 3);
}

BOOST_AUTO_TEST_SUITE_END()
