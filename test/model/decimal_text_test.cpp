// model/decimal_text.hpp: a decimal resourceVersion or Portworx volume id is kept as its
// number and reads back as the text it came from; any other text is kept as text. model/sparse_map.hpp:
// a map that holds nothing costs no heap and reads as an empty map.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/objects.hpp"
#include "model/sparse_map.hpp"
#include "model/decimal_text.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(decimal_text_suite)

BOOST_AUTO_TEST_CASE(every_version_reads_back_as_sent) {
  for (const char* text : {"0", "7", "123456789", "1054768203394213455", "9223372036854775807", "9223372036854775808",
                           "18446744073709551616", "007", "12a", "abc", "-1", "+5", " 5", ""}) {
    decimal_text v{text};
    BOOST_TEST_CONTEXT(text) {
      BOOST_CHECK_EQUAL(v.str(), text);
      BOOST_CHECK(v == std::string(text));
      BOOST_CHECK_EQUAL(v.empty(), std::string(text).empty());
    }
  }
  BOOST_CHECK_EQUAL(sizeof(decimal_text), 8u); // a std::string is 32
}

BOOST_AUTO_TEST_CASE(only_canonical_decimals_are_numbers) {
  BOOST_CHECK_EQUAL(*decimal_text{"42"}.number(), 42u);
  BOOST_CHECK_EQUAL(*decimal_text{"0"}.number(), 0u);
  BOOST_CHECK(!decimal_text{"042"}.number());       // would print back as "42"
  BOOST_CHECK(!decimal_text{"9223372036854775808"}.number()); // above what 63 bits hold
  BOOST_CHECK(!decimal_text{"v1"}.number());
  BOOST_CHECK(!decimal_text{}.number());
}

BOOST_AUTO_TEST_CASE(equality_is_by_text) {
  BOOST_CHECK(decimal_text{"10"} == decimal_text{"10"});
  BOOST_CHECK(decimal_text{"10"} != decimal_text{"010"});
  BOOST_CHECK(decimal_text{"abc"} == decimal_text{"abc"});
  BOOST_CHECK(decimal_text{"abc"} != decimal_text{"abd"});
  BOOST_CHECK(decimal_text{} != decimal_text{"0"});
  BOOST_CHECK(decimal_text{} == decimal_text{""});
  BOOST_CHECK(decimal_text{"5"} != "6");
}

BOOST_AUTO_TEST_CASE(copies_and_moves_keep_their_own_text) {
  decimal_text a{"not-a-number"};
  decimal_text b = a;
  a = "12";
  BOOST_CHECK_EQUAL(b.str(), "not-a-number");
  decimal_text c = std::move(b);
  BOOST_CHECK_EQUAL(c.str(), "not-a-number");
  BOOST_CHECK(b.empty()); // NOLINT(bugprone-use-after-move): a moved-from version is empty
  auto& same = c;
  c = same;
  BOOST_CHECK_EQUAL(c.str(), "not-a-number");
  c = a;
  BOOST_CHECK_EQUAL(c.str(), "12");
}

BOOST_AUTO_TEST_CASE(text_appends_as_it_reads) {
  std::string out = "id ";
  decimal_text{"1054768203394213455"}.append_to(out);
  out += ' ';
  decimal_text{"vol-7a8b"}.append_to(out);
  decimal_text{}.append_to(out);
  BOOST_CHECK_EQUAL(out, "id 1054768203394213455 vol-7a8b");
}

BOOST_AUTO_TEST_CASE(a_decoded_object_keeps_its_version) {
  auto pvc = decode_pvc(R"({"metadata":{"name":"c","namespace":"ns","resourceVersion":"0815"},
                             "spec":{"volumeName":"pv-1"}})");
  BOOST_REQUIRE(pvc);
  BOOST_CHECK_EQUAL(pvc->metadata.resource_version.str(), "0815");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(sparse_map_suite)

BOOST_AUTO_TEST_CASE(an_empty_map_reads_as_one) {
  sparse_map m;
  BOOST_CHECK(m.empty());
  BOOST_CHECK(m.find("a") == m.end());
  BOOST_CHECK_EQUAL(m.count("a"), 0u);
  BOOST_CHECK_EQUAL(sizeof(sparse_map), sizeof(void*));
}

BOOST_AUTO_TEST_CASE(it_reads_and_copies_like_the_map) {
  sparse_map m;
  m["cool/at"] = "2026-12-01T10:00:00Z";
  sparse_map copy = m;
  m["cool/at"] = "changed";
  BOOST_CHECK_EQUAL(copy.at("cool/at"), "2026-12-01T10:00:00Z");
  BOOST_CHECK(copy.find("cool/at") != copy.end());
  const string_map& as_map = copy;
  BOOST_CHECK_EQUAL(as_map.size(), 1u);
  BOOST_CHECK_EQUAL(m.erase("cool/at"), 1u);
  BOOST_CHECK(m.empty());
  m = string_map{};
  BOOST_CHECK(m == sparse_map{});
}

BOOST_AUTO_TEST_SUITE_END()
