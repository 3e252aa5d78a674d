// Kubernetes quantities: every suffix form, rounding up, and what is no quantity.
#include <boost/test/unit_test.hpp>

#include "model/quantity.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(quantity)

BOOST_AUTO_TEST_CASE(parses_every_suffix_form) {
  struct row {
    const char* text;
    int64_t scale;
    std::optional<int64_t> expected;
  };
  const row rows[] = {
    {"8Gi", 1, int64_t{8} << 30},    {"512Mi", 1, int64_t{512} << 20},
    {"100Ki", 1, 102400},            {"1Ti", 1, int64_t{1} << 40},
    {"1k", 1, 1000},                 {"2M", 1, 2000000},
    {"3G", 1, 3000000000},           {"128974848", 1, 128974848},
    {"1.5Gi", 1, int64_t{3} << 29},  {"1e3", 1, 1000},
    {"12E-1", 1, 2},                 {"0", 1, 0},
    {"500m", 1000, 500},             {"2", 1000, 2000},
    {"0.5", 1000, 500},              {"0.1", 1000, 100},
    {"1500000u", 1000, 1500},        {"1n", 1000, 1}, // rounds up
    {"250m", 1, 1},                  {"+4", 1, 4},
    {"", 1, std::nullopt},           {"Gi", 1, std::nullopt},
    {"4GB", 1, std::nullopt},        {"-1", 1, std::nullopt},
    {"1.2.3", 1, std::nullopt},      {"1e", 1, std::nullopt},
    {"99999999999E", 1, std::nullopt},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.text << " x" << r.scale) {
      BOOST_CHECK(parse_quantity(r.text, r.scale) == r.expected);
    }
}

BOOST_AUTO_TEST_CASE(formats_for_reasons) {
  BOOST_CHECK_EQUAL(format_cpu(2000), "2");
  BOOST_CHECK_EQUAL(format_cpu(500), "500m");
  BOOST_CHECK_EQUAL(format_cpu(0), "0");
  BOOST_CHECK_EQUAL(format_memory(int64_t{8} << 30), "8Gi");
  BOOST_CHECK_EQUAL(format_memory(int64_t{512} << 20), "512Mi");
  BOOST_CHECK_EQUAL(format_memory(int64_t{3} << 29), "1.5Gi");
  BOOST_CHECK_EQUAL(format_memory((int64_t{2} << 30) - 1), "1.9Gi"); // never rounds up
  BOOST_CHECK_EQUAL(format_memory(2048), "2Ki");
  BOOST_CHECK_EQUAL(format_memory(100), "100");
  BOOST_CHECK_EQUAL(format_memory(0), "0");
}

BOOST_AUTO_TEST_SUITE_END()
