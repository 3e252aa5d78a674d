// Details are capped at maxNonHyperconvergedPerRun, but the slots reserved for the
// migration engine are never taken by evaluator skips (so resume stays exact).
#include <boost/test/unit_test.hpp>

#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/status_coalescer.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

namespace {

kind_detail detail(const std::string& name, detail_status status) {
  return {name, "ns", status, status == detail_status::skipped ? "NoTargetNode: x" : ""};
}

} // namespace

BOOST_AUTO_TEST_SUITE(detail_reservation_suite)

BOOST_AUTO_TEST_CASE(skips_leave_room_for_reserved_engine_results) {
  status_coalescer c(1s, 30s, 4);
  c.reserve_details(vm_hyperconvergence_kind, 2);
  for (auto name : {"s1", "s2", "s3", "s4"})
    BOOST_CHECK(c.add_result(vm_hyperconvergence_kind, detail(name, detail_status::skipped)));
  BOOST_CHECK(c.add_result(vm_hyperconvergence_kind, detail("m1", detail_status::successful)));
  BOOST_CHECK(c.add_result(vm_hyperconvergence_kind, detail("m2", detail_status::failed)));
  auto& vh = c.current().kinds.at(vm_hyperconvergence_kind);
  BOOST_CHECK_EQUAL(vh.skipped, 4); // counters stay exact
  BOOST_CHECK_EQUAL(vh.successful, 1);
  BOOST_CHECK_EQUAL(vh.failed, 1);
  BOOST_REQUIRE_EQUAL(vh.details.size(), 4u);
  BOOST_CHECK_EQUAL(vh.details[0].name, "s1");
  BOOST_CHECK_EQUAL(vh.details[1].name, "s2");
  BOOST_CHECK_EQUAL(vh.details[2].name, "m1");
  BOOST_CHECK_EQUAL(vh.details[3].name, "m2");
}

BOOST_AUTO_TEST_CASE(without_reservation_skips_fill_the_cap) {
  status_coalescer c(1s, 30s, 2);
  for (auto name : {"s1", "s2", "s3"})
    c.add_result(vm_hyperconvergence_kind, detail(name, detail_status::skipped));
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).details.size(), 2u);
  BOOST_CHECK_EQUAL(c.current().kinds.at(vm_hyperconvergence_kind).skipped, 3);
}

BOOST_AUTO_TEST_SUITE_END()
