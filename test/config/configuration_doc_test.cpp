// docs/configuration.md is where a user looks up a setting: it carries the generated
// settings table verbatim, so the page cannot drift from config/setting_table.hpp.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "config/settings.hpp"

namespace {

std::string configuration_doc() {
  std::ifstream in{std::string{SCHEDOPT_SOURCE_DIR} + "/docs/configuration.md"};
  BOOST_REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

BOOST_AUTO_TEST_CASE(configuration_doc_lists_every_setting_with_its_default) {
  auto doc = configuration_doc();
  // Per setting first, so a failure names the row that drifted.
  for (auto& s : schedopt::all_settings()) {
    BOOST_TEST_CONTEXT("setting " << s.key) {
      BOOST_CHECK(doc.find("`" + s.flag + "`") != std::string::npos);
      BOOST_CHECK(doc.find("`" + s.env + "`") != std::string::npos);
      BOOST_CHECK(doc.find(s.default_text) != std::string::npos);
    }
  }
  BOOST_CHECK_MESSAGE(doc.find(schedopt::settings_markdown_table()) != std::string::npos,
                      "docs/configuration.md does not hold settings_markdown_table() verbatim");
}
