// model/wire_enums: every wire name reads back as its enum, and text no enum names (an
// old or hand-edited CRD) still decodes and is treated as the text was before enums:
// not new, not running, not final.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "model/decode.hpp"
#include "model/encode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/request_queue.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(wire_enums_suite)

BOOST_AUTO_TEST_CASE(every_wire_name_reads_back_as_its_enum) {
  for (auto s : {request_stage::none, request_stage::pending, request_stage::evaluating,
                 request_stage::migrating, request_stage::final_})
    BOOST_TEST(from_wire<request_stage>(to_wire(s)) == s, to_wire(s));
  for (auto s : {request_status::none, request_status::pending, request_status::in_progress,
                 request_status::successful, request_status::partial_success,
                 request_status::failed})
    BOOST_TEST(from_wire<request_status>(to_wire(s)) == s, to_wire(s));
  for (auto s : {detail_status::successful, detail_status::skipped, detail_status::failed})
    BOOST_TEST(from_wire<detail_status>(to_wire(s)) == s, to_wire(s));
  BOOST_TEST(to_wire(request_stage::final_) == "Final");
  BOOST_TEST(to_wire(request_status::partial_success) == "PartialSuccess");
  BOOST_TEST(to_wire(reason_kind::migration_create_failed) == "MigrationCreateFailed");
}

BOOST_AUTO_TEST_CASE(text_no_enum_names_is_unknown) {
  BOOST_TEST(from_wire<request_stage>("Bogus") == request_stage::unknown);
  BOOST_TEST(from_wire<request_stage>("final") == request_stage::unknown); // case counts
  BOOST_TEST(from_wire<request_status>("Done") == request_status::unknown);
  BOOST_TEST(from_wire<detail_status>("") == detail_status::unknown);
  BOOST_TEST(!is_running(request_stage::unknown));
}

BOOST_AUTO_TEST_CASE(a_request_with_unknown_values_decodes_and_keeps_its_place) {
  auto so = decode_scheduling_optimization(R"({"metadata":{"name":"odd","uid":"u-odd",
    "creationTimestamp":"2026-11-30T10:00:00Z"},"spec":{"vmHyperconvergence":{"enabled":true}},
    "status":{"stage":"Bogus","status":"Done","vmHyperconvergence":{"successful":0,
    "skipped":0,"failed":1,"details":[{"name":"a","namespace":"ns","status":"Exploded"}]}}})");
  BOOST_REQUIRE_MESSAGE(so.has_value(), (so ? std::string() : so.err().message));
  BOOST_TEST(so->status.stage == request_stage::unknown);
  BOOST_TEST(so->status.status == request_status::unknown);
  BOOST_TEST(so->status.kinds.at(vm_hyperconvergence_kind).details.at(0).status == detail_status::unknown);
  // As a stage of unrecognised text always was: not Final, so open; not new, so never
  // re-marked Pending; not running, so an older new request is not pushed aside by it.
  scheduling_optimization older;
  older.metadata.name = older.metadata.uid = "older";
  older.metadata.creation_timestamp = "2026-11-30T09:00:00Z";
  auto d = decide_queue({*so, older});
  BOOST_REQUIRE(d.run);
  BOOST_TEST(*d.run == "older");
  BOOST_TEST(!d.resume);
  BOOST_TEST(d.open == 2u);
  BOOST_TEST(d.to_pending.empty());
  older.status.stage = request_stage::final_;
  d = decide_queue({*so, older});
  BOOST_REQUIRE(d.run);
  BOOST_TEST(*d.run == "u-odd"); // promoted like a Pending request
  BOOST_TEST(!d.resume);
  // Encoded, it is a status of its own (never mistaken for a new request's absent one).
  auto j = to_json(*so);
  BOOST_TEST(j.contains("status"));
  BOOST_TEST(j["status"]["stage"] == "Unknown");
}

BOOST_AUTO_TEST_SUITE_END()
