// Unit tests of Go's encoding/json syntax errors as the simulator words them; the
// expected texts are what Go 1.26's json.Unmarshal answered for the same bytes.
#include <boost/test/unit_test.hpp>

#include "sim/go_json_errors.hpp"

using schedopt::sim::go_json_syntax_error;
using schedopt::sim::summarize_data;

BOOST_AUTO_TEST_SUITE(go_json_errors_suite)

BOOST_AUTO_TEST_CASE(valid_json_has_no_error) {
  BOOST_TEST(!go_json_syntax_error(R"({"a":[1,-2.5e3,true,null,"x\u00e9"]})").has_value());
  BOOST_TEST(!go_json_syntax_error(" 12 ").has_value());
}

BOOST_AUTO_TEST_CASE(errors_in_gos_words) {
  auto error = [](const std::string& text) { return go_json_syntax_error(text).value_or("<none>"); };
  BOOST_TEST(error("{not json") == "invalid character 'n' looking for beginning of object key string");
  BOOST_TEST(error("\x9e") == "invalid character '\\u009e' looking for beginning of value");
  BOOST_TEST(error(R"({"v":"a"} x)") == "invalid character 'x' after top-level value");
  BOOST_TEST(error("nul") == "invalid character ' ' in literal null (expecting 'l')");
  BOOST_TEST(error("tru") == "invalid character ' ' in literal true (expecting 'e')");
  BOOST_TEST(error("-") == "invalid character ' ' in numeric literal");
  BOOST_TEST(error("1.") == "invalid character ' ' after decimal point in numeric literal");
  BOOST_TEST(error("1e") == "invalid character ' ' in exponent of numeric literal");
  BOOST_TEST(error(R"({"a":1,})") == "invalid character '}' looking for beginning of object key string");
  BOOST_TEST(error(R"({"a" 1})") == "invalid character '1' after object key");
  BOOST_TEST(error("{\"a\":\"\x01\"}") == "invalid character '\\x01' in string literal");
  BOOST_TEST(error("[2, 3") == "unexpected end of JSON input");
  BOOST_TEST(error("") == "unexpected end of JSON input");
}

BOOST_AUTO_TEST_CASE(summaries_quote_objects_and_hex_the_rest) {
  BOOST_TEST(summarize_data("", 30) == "<empty>");
  BOOST_TEST(summarize_data("{not json", 30) == "{not json");
  BOOST_TEST(summarize_data("[1,2", 30) == "5b312c32");
  BOOST_TEST(summarize_data(std::string(40, '{'), 30) == std::string(30, '{') + " ...");
}

BOOST_AUTO_TEST_SUITE_END()
