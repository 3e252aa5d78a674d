// docs/design.md §4.1: a resumed run accounts for every candidate exactly once.
#include <boost/test/unit_test.hpp>

#include "model/resume_ledger.hpp"

using namespace schedopt;

namespace {

kind_detail detail(const std::string& name, detail_status status) {
  return {name, "ns", status, status == detail_status::skipped ? "NotLiveMigratable: x" : ""};
}

} // namespace

BOOST_AUTO_TEST_SUITE(resume_ledger_suite)

BOOST_AUTO_TEST_CASE(nothing_recorded_means_every_skip_is_new) {
  resume_ledger none;
  auto skips = std::vector<kind_detail>{detail("a", detail_status::skipped)};
  BOOST_CHECK_EQUAL(none.new_skips(skips).size(), 1u);
  BOOST_CHECK_EQUAL(none.slots_used({"ns/x"}), 1);
}

BOOST_AUTO_TEST_CASE(named_results_are_not_counted_again) {
  kind_status_block s;
  s.successful = 1;
  s.failed = 1;
  s.skipped = 1;
  s.details = {detail("ok", detail_status::successful), detail("bad", detail_status::failed),
               detail("skip", detail_status::skipped)};
  resume_ledger l{s};
  BOOST_CHECK(l.accounted("ns/ok"));
  BOOST_CHECK(l.accounted("ns/skip"));
  BOOST_CHECK(!l.accounted("ns/new"));
  BOOST_CHECK_EQUAL(l.engine_done().size(), 2u);
  BOOST_CHECK_EQUAL(l.unnamed_skips(), 0);
  // A re-evaluation that skips the recorded VM again and a VM that was eligible before
  // (its VMIM never created): only the latter is new.
  auto fresh = l.new_skips(
    {detail("skip", detail_status::skipped), detail("new", detail_status::skipped)});
  BOOST_REQUIRE_EQUAL(fresh.size(), 1u);
  BOOST_CHECK_EQUAL(fresh[0].name, "new");
}

BOOST_AUTO_TEST_CASE(an_adopted_vm_uses_one_slot) {
  kind_status_block s;
  s.successful = 1;
  s.details = {detail("done", detail_status::successful)};
  resume_ledger l{s};
  // "done" finished (its VMIM still listed as ours), "flying" is adopted in flight.
  BOOST_CHECK_EQUAL(l.slots_used({"ns/done", "ns/flying"}), 2);
}

BOOST_AUTO_TEST_CASE(skips_counted_without_a_name_are_not_counted_twice) {
  // 5 skips counted, 2 named (details were full): 3 of a re-evaluation's unnamed skips
  // are those; with 4 unnamed skips now, exactly 1 is new.
  kind_status_block s;
  s.skipped = 5;
  s.details = {detail("s1", detail_status::skipped), detail("s2", detail_status::skipped)};
  resume_ledger l{s};
  BOOST_CHECK_EQUAL(l.unnamed_skips(), 3);
  std::vector<kind_detail> again = {
    detail("s1", detail_status::skipped), detail("u1", detail_status::skipped),
    detail("u2", detail_status::skipped), detail("u3", detail_status::skipped),
    detail("u4", detail_status::skipped)};
  BOOST_CHECK_EQUAL(l.new_skips(again).size(), 1u);
  // Fewer unnamed skips than were counted (a VM stopped being a candidate): none new.
  BOOST_CHECK_EQUAL(l.new_skips({detail("u1", detail_status::skipped)}).size(), 0u);
}

BOOST_AUTO_TEST_SUITE_END()
