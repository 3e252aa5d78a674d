// model/pv_name.hpp: a provisioned PV's name ("pvc-" and a uid) is kept as the uid's 16
// bytes and reads back as sent; any other name is kept as text.
#include <string>
#include <string_view>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "model/decode.hpp"
#include "model/pv_name.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(pv_name_suite)

BOOST_AUTO_TEST_CASE(every_name_reads_back_as_sent) {
  for (const char* text : {"pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e", // provisioned
                           "3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e",     // a bare uid
                           "pvc-3F1D2C4B-8E7A-4F60-9B2D-1C0E5A6B7D8E", // upper case
                           "pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8",  // one short
                           "pvc-00000000-0000-0000-0000-000000000000", // the nil uid
                           "pvc-3f1d2c4b-8e7a-0f60-9b2d-1c0e5a6b7d8e", // no version: text
                           "pvc-", "pv-data-db-0", "local-pv-1", ""}) {
    pv_name name{text};
    BOOST_TEST_CONTEXT(text) {
      BOOST_CHECK_EQUAL(name.str(), text);
      BOOST_CHECK(name == std::string(text));
      BOOST_CHECK_EQUAL(name.empty(), std::string(text).empty());
    }
  }
  BOOST_CHECK_LE(sizeof(pv_name), 16u); // a std::string alone is 32, and a heap block
}

BOOST_AUTO_TEST_CASE(names_compare_by_text) {
  pv_name a{"pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e"};
  BOOST_CHECK(a == pv_name{"pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e"});
  BOOST_CHECK(a != pv_name{"pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8f"});
  BOOST_CHECK(a != pv_name{"3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e"});
  BOOST_CHECK(pv_name{"pv-1"} == pv_name{"pv-1"});
  BOOST_CHECK_EQUAL("persistentvolumes \"" + a + "\"",
                    "persistentvolumes \"pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e\"");
  a.clear();
  BOOST_CHECK(a.empty());
}

// PVs are stored and found in their names' text order, provisioned ones compared by
// their uid's bytes: both orders must agree, and so must equal names' hashes.
BOOST_AUTO_TEST_CASE(names_order_and_hash_as_their_text) {
  std::vector<std::string> texts{"pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8e",
                                 "pvc-3f1d2c4b-8e7a-4f60-9b2d-1c0e5a6b7d8f",
                                 "pvc-a0000000-0000-0000-0000-000000000000",
                                 "pvc-09999999-9999-9999-9999-999999999999",
                                 "pvc-00000000-0000-0000-0000-000000000000", // kept as text
                                 "pvc-3f1d2c4b-8e7a-0f60-9b2d-1c0e5a6b7d8e", // so is this
                                 "pvc-3f1d2c4b", "pvc-", "pvc-z", "pv-data-db-0", "local-pv-1", ""};
  auto sign = [](int c) { return c < 0 ? -1 : c > 0 ? 1 : 0; };
  for (const auto& a : texts)
    for (const auto& b : texts)
      BOOST_TEST_CONTEXT(a << " vs " << b) {
        BOOST_CHECK_EQUAL(compare(pv_name(a), pv_name(b)), sign(a.compare(b)));
        BOOST_CHECK_EQUAL(compare(pv_name(a), std::string_view(b)), sign(a.compare(b)));
        if (a == b)
          BOOST_CHECK_EQUAL(pv_name(a).hash(), pv_name(b).hash());
      }
}

BOOST_AUTO_TEST_CASE(a_decoded_claim_keeps_its_volume_name) {
  auto pvc = decode_pvc(R"({"metadata":{"name":"c","namespace":"ns"},
                             "spec":{"volumeName":"pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"}})");
  BOOST_REQUIRE(pvc);
  BOOST_CHECK_EQUAL(pvc->volume_name.str(), "pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
}

BOOST_AUTO_TEST_SUITE_END()
