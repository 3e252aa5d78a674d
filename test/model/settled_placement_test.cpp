// A VMI read before its migration's end reached it is evaluated where the migration put it.
#include <boost/test/unit_test.hpp>

#include "model/settled_placement.hpp"

using namespace schedopt;

namespace {

virtual_machine_instance vmi_on(const std::string& node, const std::string& created = "2026-12-01T10:00:00Z") {
  virtual_machine_instance v;
  v.metadata.namespace_ = "ns";
  v.metadata.name = "vm";
  v.metadata.creation_timestamp = created;
  v.phase = "Running";
  v.node_name = node;
  return v;
}

virtual_machine_instance_migration vmim(const std::string& uid, const std::string& phase,
                                        const std::string& target, const std::string& ended,
                                        const std::string& created = "2026-12-01T11:00:00Z") {
  virtual_machine_instance_migration m;
  m.metadata.namespace_ = "ns";
  m.metadata.name = "vm-" + uid;
  m.metadata.uid = uid;
  m.metadata.creation_timestamp = created;
  m.vmi_name = "vm";
  m.phase = phase;
  migration_state s;
  s.migration_uid = uid;
  s.source_node = "n1";
  s.target_node = target;
  s.end_timestamp = ended;
  s.completed = phase == "Succeeded" || phase == "Failed";
  s.failed = phase == "Failed";
  m.migration = s;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(settled_placement)

BOOST_AUTO_TEST_CASE(a_vmi_not_yet_told_of_its_succeeded_migration_is_settled_on_the_target) {
  std::vector<virtual_machine_instance> vmis{vmi_on("n1")};
  auto settled = settle_finished_migrations(vmis, {vmim("u1", "Succeeded", "n2", "2026-12-01T11:01:00Z")});
  BOOST_CHECK_EQUAL(settled, 1u);
  BOOST_CHECK_EQUAL(vmis[0].node_name, "n2");
  BOOST_REQUIRE(vmis[0].migration);
  BOOST_CHECK_EQUAL(vmis[0].migration->migration_uid, "u1");
  BOOST_CHECK(vmis[0].migration->completed);
}

BOOST_AUTO_TEST_CASE(a_vmi_that_saw_the_migration_run_but_not_end_is_settled) {
  auto v = vmi_on("n1");
  migration_state running;
  running.migration_uid = "u1";
  running.target_node = "n2";
  v.migration = running;
  std::vector<virtual_machine_instance> vmis{v};
  BOOST_CHECK_EQUAL(settle_finished_migrations(vmis, {vmim("u1", "Succeeded", "n2", "2026-12-01T11:01:00Z")}), 1u);
  BOOST_CHECK_EQUAL(vmis[0].node_name, "n2");
}

BOOST_AUTO_TEST_CASE(failed_and_running_migrations_move_nothing) {
  std::vector<virtual_machine_instance> vmis{vmi_on("n1")};
  BOOST_CHECK_EQUAL(settle_finished_migrations(vmis, {vmim("u1", "Failed", "n2", "2026-12-01T11:01:00Z"),
                                                      vmim("u2", "Running", "n3", "")}),
                    0u);
  BOOST_CHECK_EQUAL(vmis[0].node_name, "n1");
}

BOOST_AUTO_TEST_CASE(the_latest_succeeded_migration_wins) {
  std::vector<virtual_machine_instance> vmis{vmi_on("n1")};
  settle_finished_migrations(vmis, {vmim("late", "Succeeded", "n3", "2026-12-01T12:00:00Z"),
                                    vmim("early", "Succeeded", "n2", "2026-12-01T11:01:00Z")});
  BOOST_CHECK_EQUAL(vmis[0].node_name, "n3");
}

BOOST_AUTO_TEST_CASE(a_vmi_that_recorded_the_end_or_a_newer_migration_is_left_alone) {
  auto recorded = vmi_on("n5"); // moved on by hand since: its own record says so
  migration_state own;
  own.migration_uid = "u1";
  own.target_node = "n2";
  own.completed = true;
  recorded.migration = own;
  auto newer = vmi_on("n2");
  migration_state next;
  next.migration_uid = "u9";
  next.target_node = "n4";
  newer.migration = next; // in flight, started after u1 ended
  auto restarted = vmi_on("n1", "2026-12-01T13:00:00Z"); // created after the VMIM
  std::vector<virtual_machine_instance> vmis{recorded, newer, restarted};
  BOOST_CHECK_EQUAL(settle_finished_migrations(vmis, {vmim("u1", "Succeeded", "n2", "2026-12-01T11:01:00Z")}),
                    0u);
  BOOST_CHECK_EQUAL(vmis[0].node_name, "n5");
  BOOST_CHECK_EQUAL(vmis[1].node_name, "n2");
  BOOST_CHECK_EQUAL(vmis[2].node_name, "n1");
}

BOOST_AUTO_TEST_SUITE_END()
