// SPEC §3 target pinning: fewest schedopt migrations in flight, ties by name.
#include <boost/test/unit_test.hpp>

#include "model/target_choice.hpp"
#include "model/vmim_outcome.hpp"

using namespace schedopt;

namespace {

virtual_machine_instance_migration vmim(const std::string& target, const std::string& phase,
                                        bool ours = true) {
  virtual_machine_instance_migration m;
  if (ours)
    m.metadata.labels[labels::managed_by] = labels::managed_by_value;
  if (!target.empty())
    m.added_node_selector[labels::hostname] = target;
  m.phase = phase;
  return m;
}

} // namespace

BOOST_AUTO_TEST_SUITE(target_choice)

BOOST_AUTO_TEST_CASE(choice_table) {
  struct row {
    std::vector<std::string> targets;
    std::map<std::string, int64_t> load;
    std::optional<std::string> expected;
  };
  const std::vector<row> rows = {
    {{}, {}, std::nullopt},
    {{"n2"}, {{"n2", 9}}, "n2"},
    {{"n2", "n1", "n3"}, {}, "n1"},                              // all idle: smallest name
    {{"n1", "n2", "n3"}, {{"n1", 2}, {"n2", 1}, {"n3", 1}}, "n2"}, // tie n2/n3 -> n2
    {{"n1", "n2"}, {{"n1", 1}}, "n2"},                           // absent counts as 0
    {{"b", "a"}, {{"a", 3}, {"b", 3}}, "a"},
  };
  for (const auto& r : rows) {
    auto got = choose_target(r.targets, r.load);
    BOOST_CHECK(got == r.expected);
  }
}

BOOST_AUTO_TEST_CASE(counts_only_non_final_schedopt_migrations) {
  std::vector<virtual_machine_instance_migration> ms = {
    vmim("n1", "Running"), vmim("n1", "Scheduling"), vmim("n2", ""),
    vmim("n2", "Succeeded"), vmim("n3", "Failed"), vmim("n3", "Running", false),
    vmim("", "Running")};
  auto load = in_flight_by_target(ms);
  BOOST_CHECK_EQUAL(load.size(), 2u);
  BOOST_CHECK_EQUAL(load.at("n1"), 2);
  BOOST_CHECK_EQUAL(load.at("n2"), 1);
}

BOOST_AUTO_TEST_SUITE_END()
