// Reasons are capped at 256 bytes and never split a UTF-8 character.
#include <boost/test/unit_test.hpp>

#include "model/reason.hpp"

using namespace schedopt;

namespace {

// True if `s` is well-formed UTF-8 (enough for the 1-4 byte sequences used here).
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size())
      return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
        return false;
    i += len;
  }
  return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(reasons)

BOOST_AUTO_TEST_CASE(short_text_is_unchanged) {
  BOOST_TEST(truncate_utf8("héllo", 256) == "héllo");
  BOOST_TEST(truncate_utf8("", 0) == "");
  BOOST_TEST(truncate_utf8("abc", 3) == "abc");
  BOOST_TEST(truncate_utf8("abcd", 3) == "abc");
}

BOOST_AUTO_TEST_CASE(cut_never_splits_a_multibyte_character) {
  const std::string two = "\xC3\xA9";          // é
  const std::string three = "\xE2\x82\xAC";    // €
  const std::string four = "\xF0\x9F\x98\x80"; // 😀
  for (const std::string& ch : {two, three, four}) {
    // Put the character so that it starts 1 byte before the cut ... ends exactly at it.
    for (std::size_t offset = 0; offset <= ch.size(); ++offset) {
      std::string text(256 - ch.size() + offset, 'a');
      text += ch;
      text += "tail";
      auto cut = truncate_utf8(text, 256);
      BOOST_TEST_INFO("char bytes " << ch.size() << " offset " << offset);
      BOOST_TEST(cut.size() <= 256u);
      BOOST_TEST(valid_utf8(cut));
      if (offset == 0)
        BOOST_TEST(cut.size() == 256u); // character ends exactly at the cut: kept
      else
        BOOST_TEST(cut.size() == 256 - ch.size() + offset); // character dropped whole
    }
  }
}

BOOST_AUTO_TEST_CASE(make_reason_caps_at_256_bytes_on_a_boundary) {
  std::string detail;
  for (int i = 0; i < 200; ++i)
    detail += "\xE2\x82\xAC"; // 600 bytes of €
  auto r = make_reason(reason_kind::migration_run_failed, detail);
  BOOST_TEST(r.size() <= max_reason_bytes);
  BOOST_TEST(r.size() > max_reason_bytes - 3);
  BOOST_TEST(valid_utf8(r));
  BOOST_TEST(r.rfind("MigrationRunFailed: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(make_reason_joins_kind_and_detail) {
  BOOST_TEST(make_reason(reason_kind::cooling_off, "eligible after 2026-11-30T13:00:00Z")
             == "CoolingOff: eligible after 2026-11-30T13:00:00Z");
  BOOST_TEST(make_reason(reason_kind::no_target_node, "") == "NoTargetNode");
}

BOOST_AUTO_TEST_CASE(split_reason_splits_on_first_separator) {
  auto [kind, detail] = split_reason("EvaluationError: persistentvolumeclaims \"foo\": not found");
  BOOST_TEST(kind == "EvaluationError");
  BOOST_TEST(detail == "persistentvolumeclaims \"foo\": not found");
  auto [k2, d2] = split_reason("no separator");
  BOOST_TEST(k2 == "");
  BOOST_TEST(d2 == "no separator");
}

BOOST_AUTO_TEST_SUITE_END()
