// docs/configuration.md is where a user looks up a setting: it carries the generated
// settings table verbatim, the core rows (config/setting_table.hpp) and every registered
// kind's section (its settings table), so the page cannot drift from the code. Here
// rather than in test/config: the kinds' tables come from the registry in actors/.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "actors/optimization_kinds.hpp"
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
  const auto kinds = schedopt::kind_settings_tables();
  // Per setting first, so a failure names the row that drifted.
  for (auto& s : schedopt::all_settings(kinds)) {
    BOOST_TEST_CONTEXT("setting " << s.key) {
      BOOST_CHECK(doc.find("`" + s.flag + "`") != std::string::npos);
      BOOST_CHECK(doc.find("`" + s.env + "`") != std::string::npos);
      BOOST_CHECK(doc.find(s.default_text) != std::string::npos);
    }
  }
  // On a mismatch the message carries the table to paste under "## Every setting".
  auto table = schedopt::settings_markdown_table(kinds);
  BOOST_CHECK_MESSAGE(doc.find(table) != std::string::npos,
                      "docs/configuration.md does not hold settings_markdown_table() of every "
                      "kind verbatim; it should hold:\n"
                        << table);
}
