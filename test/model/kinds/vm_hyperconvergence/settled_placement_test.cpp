// A VMI read before its migration's end reached it is evaluated where the migration put it.
#include <boost/test/unit_test.hpp>

#include "model/kinds/vm_hyperconvergence/settled_placement.hpp"

using namespace schedopt;

namespace {

virtual_machine_instance vmi_on(const std::string& node) {
  virtual_machine_instance v;
  v.metadata.namespace_ = "ns";
  v.metadata.name = "vm";
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

migration_state running_state(const std::string& uid, const std::string& target) {
  migration_state s;
  s.migration_uid = uid;
  s.source_node = "n1";
  s.target_node = target;
  return s;
}

BOOST_AUTO_TEST_SUITE(settled_placement)

BOOST_AUTO_TEST_CASE(a_vmi_that_saw_its_migration_run_but_not_end_is_settled_on_the_target) {
  auto v = vmi_on("n1");
  v.migration = running_state("u1", "n2");
  auto vmis = share_all(std::vector<virtual_machine_instance>{v});
  auto original = vmis[0];
  auto settled = settle_finished_migrations(vmis, {vmim("u1", "Succeeded", "n2", "2026-12-01T11:01:00Z")});
  BOOST_CHECK_EQUAL(settled, 1u);
  BOOST_CHECK_EQUAL(original->node_name, "n1"); // the store's object is not changed
  BOOST_CHECK_EQUAL(vmis[0]->node_name, "n2");
  BOOST_REQUIRE(vmis[0]->migration);
  BOOST_CHECK_EQUAL(vmis[0]->migration->migration_uid, "u1");
  BOOST_CHECK(vmis[0]->migration->completed);
}

BOOST_AUTO_TEST_CASE(failed_and_running_migrations_move_nothing) {
  auto failed = vmi_on("n1");
  failed.migration = running_state("u1", "n2");
  auto running = vmi_on("n1");
  running.metadata.name = "other";
  running.migration = running_state("u2", "n3");
  auto other = vmim("u2", "Running", "n3", "");
  other.vmi_name = "other";
  auto vmis = share_all(std::vector<virtual_machine_instance>{failed, running});
  BOOST_CHECK_EQUAL(settle_finished_migrations(vmis, {vmim("u1", "Failed", "n2", "2026-12-01T11:01:00Z"), other}),
                    0u);
  BOOST_CHECK_EQUAL(vmis[0]->node_name, "n1");
  BOOST_CHECK_EQUAL(vmis[1]->node_name, "n1");
}

BOOST_AUTO_TEST_CASE(only_the_migration_the_vmi_names_counts) {
  auto v = vmi_on("n1");
  v.migration = running_state("late", "n3");
  auto vmis = share_all(std::vector<virtual_machine_instance>{v});
  settle_finished_migrations(vmis, {vmim("early", "Succeeded", "n2", "2026-12-01T11:01:00Z"),
                                    vmim("late", "Succeeded", "n3", "2026-12-01T12:00:00Z")});
  BOOST_CHECK_EQUAL(vmis[0]->node_name, "n3");
}

BOOST_AUTO_TEST_CASE(a_vmi_that_recorded_the_end_or_was_created_anew_is_left_alone) {
  auto recorded = vmi_on("n5"); // moved on by hand since: its own record says so
  auto own = running_state("u1", "n2");
  own.completed = true;
  recorded.migration = own;
  auto restarted = vmi_on("n1"); // a new VMI of the same name: no migrationState
  restarted.metadata.namespace_ = "other";
  auto old = vmim("u1", "Succeeded", "n2", "2026-12-01T11:01:00Z");
  auto old_other = vmim("u3", "Succeeded", "n2", "2026-12-01T11:01:00Z");
  old_other.metadata.namespace_ = "other";
  auto vmis = share_all(std::vector<virtual_machine_instance>{recorded, restarted});
  BOOST_CHECK_EQUAL(settle_finished_migrations(vmis, {old, old_other}), 0u);
  BOOST_CHECK_EQUAL(vmis[0]->node_name, "n5");
  BOOST_CHECK_EQUAL(vmis[1]->node_name, "n1");
}

BOOST_AUTO_TEST_SUITE_END()
