// model/object_uid.hpp: a UUID kept as its 16 bytes reads back as the text it came from;
// any other uid is kept as text.
#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/object_uid.hpp"
#include "model/objects.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(object_uid_suite)

BOOST_AUTO_TEST_CASE(a_uuid_reads_back_as_sent) {
  const std::string text = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  object_uid uid{text};
  BOOST_CHECK_EQUAL(uid.str(), text);
  BOOST_CHECK(uid == object_uid{text});
  BOOST_CHECK(uid != object_uid{"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f1"});
  BOOST_CHECK(!uid.empty());
  BOOST_CHECK_LE(sizeof(object_uid), 32u); // a std::string alone is 32, and its heap block
}

BOOST_AUTO_TEST_CASE(other_forms_are_kept_as_text) {
  // Upper case, a missing dash, a dash out of place, a non-hex digit, too short: none is
  // canonical, each must print back unchanged and differ from the canonical form.
  for (std::string text : {"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0",
                           "0f1e2d3c4b5a-6978-8796-a5b4c3d2e1f0-",
                           "0f1e2d3c-4b5a6-978-8796-a5b4c3d2e1f0",
                           "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1fg", "uid-1", "00000000"}) {
    object_uid uid{text};
    BOOST_CHECK_EQUAL(uid.str(), text);
    BOOST_CHECK(uid == object_uid{text});
    BOOST_CHECK(uid != object_uid{"0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"});
  }
  BOOST_CHECK(object_uid{}.empty());
  BOOST_CHECK(object_uid{""}.empty());
  // The all-zero UUID is a uid, not an empty one.
  object_uid zero{"00000000-0000-0000-0000-000000000000"};
  BOOST_CHECK(!zero.empty());
  BOOST_CHECK(zero != object_uid{});
  BOOST_CHECK_EQUAL(zero.str(), "00000000-0000-0000-0000-000000000000");
  BOOST_CHECK_LE(sizeof(object_uid), 16u); // a std::string alone is 32
}

BOOST_AUTO_TEST_CASE(a_decoded_vmi_keeps_its_uid) {
  auto vmi = decode_vmi(R"({"metadata":{"name":"a","namespace":"n",
      "uid":"7c9e6679-7425-40de-944b-e07fc1f90ae7"}})");
  BOOST_REQUIRE(vmi);
  BOOST_CHECK_EQUAL(vmi->metadata.uid.str(), "7c9e6679-7425-40de-944b-e07fc1f90ae7");
}

BOOST_AUTO_TEST_SUITE_END()
