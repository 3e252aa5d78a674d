// README.md lists every setting with its flag, environment variable and default: the
// table must not drift from config/settings.cpp.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>

#include "config/settings.hpp"

BOOST_AUTO_TEST_CASE(readme_lists_every_setting_with_its_default) {
  std::ifstream in{std::string{SCHEDOPT_SOURCE_DIR} + "/README.md"};
  BOOST_REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  auto readme = ss.str();
  for (auto& s : schedopt::all_settings()) {
    BOOST_TEST_CONTEXT("setting " << s.key) {
      BOOST_CHECK(readme.find("`" + s.flag + "`") != std::string::npos);
      BOOST_CHECK(readme.find("`" + s.env + "`") != std::string::npos);
      BOOST_CHECK(readme.find(s.default_text) != std::string::npos);
    }
  }
}
