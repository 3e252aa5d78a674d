// model/uuid_or_text.hpp: a versioned UUID in 16 bytes, anything else as shared text in
// the same bytes; copies and moves keep either form.
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "model/object_uid.hpp"
#include "model/uuid_or_text.hpp"

using namespace schedopt;

namespace {

uuid_or_text::uuid parsed(const char* text) {
  uuid_or_text::uuid out{};
  BOOST_REQUIRE(parse_uuid(text, out));
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(uuid_or_text_suite)

BOOST_AUTO_TEST_CASE(a_versioned_uuid_is_its_bytes_and_anything_else_text) {
  const char* v4 = "3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e";
  const char* unversioned = "3f1d2c4b-8e7a-0f60-9b2d-1c0e5a6b7d8e";
  uuid_or_text u(parsed(v4), v4);
  BOOST_CHECK(u.is_uuid());
  BOOST_CHECK(u.uuid_bytes() == parsed(v4));
  uuid_or_text t(parsed(unversioned), unversioned);
  BOOST_CHECK(!t.is_uuid());
  BOOST_CHECK_EQUAL(t.text().str(), unversioned);
  BOOST_CHECK(!uuid_or_text().is_uuid());
  BOOST_CHECK(uuid_or_text().text().empty());
  BOOST_CHECK(!(u == t));
  BOOST_CHECK_EQUAL(sizeof(uuid_or_text), 16u);
}

BOOST_AUTO_TEST_CASE(copies_and_moves_keep_either_form) {
  const char* v4 = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
  std::vector<uuid_or_text> values{uuid_or_text(parsed(v4), v4), uuid_or_text("not-a-uuid"),
                                   uuid_or_text()};
  for (int round = 0; round < 3; ++round) {
    std::vector<uuid_or_text> copies = values; // copy construction
    values.insert(values.begin(), uuid_or_text("grown")); // moves on growth
    values.erase(values.begin());
    BOOST_REQUIRE_EQUAL(copies.size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      BOOST_CHECK(copies[i] == values[i]);
  }
  uuid_or_text a("text"), b(parsed(v4), v4);
  a = b; // text over uuid
  BOOST_CHECK(a.is_uuid() && a == b);
  b = uuid_or_text("other"); // uuid over text, by move
  BOOST_CHECK(!b.is_uuid());
  BOOST_CHECK_EQUAL(b.text().str(), "other");
  a = std::move(b);
  BOOST_CHECK_EQUAL(a.text().str(), "other");
  a = a; // self-assignment keeps the value
  BOOST_CHECK_EQUAL(a.text().str(), "other");
  BOOST_CHECK_EQUAL(object_uid(v4).str(), v4);
}

BOOST_AUTO_TEST_SUITE_END()
