// Worker threads from cgroup v2 cpu.max, the host's cores and the workers setting.
#include <boost/test/unit_test.hpp>

#include "model/worker_count.hpp"

using namespace schedopt;

BOOST_AUTO_TEST_SUITE(worker_count_from_cpu_max)

BOOST_AUTO_TEST_CASE(cpu_max_lines) {
  BOOST_CHECK(!cpu_max_cores("max 100000\n"));           // no limit
  BOOST_CHECK_EQUAL(*cpu_max_cores("200000 100000\n"), 2u);
  BOOST_CHECK_EQUAL(*cpu_max_cores("150000 100000"), 2u); // 1.5 CPUs round up
  BOOST_CHECK_EQUAL(*cpu_max_cores("50000 100000"), 1u);  // half a CPU is one worker
  BOOST_CHECK_EQUAL(*cpu_max_cores("1000 100000"), 1u);
  BOOST_CHECK_EQUAL(*cpu_max_cores("0 100000"), 1u);      // at least 1
  BOOST_CHECK_EQUAL(*cpu_max_cores("400000 50000"), 8u);
  for (auto bad : {"", "\n", "max", "200000", "abc 100000", "200000 0", "200000 x",
                   "-100000 100000", "100000 100000 7"})
    BOOST_CHECK_MESSAGE(!cpu_max_cores(bad), "accepted \"" << bad << "\"");
}

BOOST_AUTO_TEST_CASE(setting_then_quota_then_host) {
  BOOST_CHECK_EQUAL(worker_count(3, 2u, 8), 3u);            // --workers wins
  BOOST_CHECK_EQUAL(worker_count(16, std::nullopt, 2), 16u); // even above the host
  BOOST_CHECK_EQUAL(worker_count(0, 2u, 8), 2u);            // the quota
  BOOST_CHECK_EQUAL(worker_count(0, 1u, 8), 1u);
  BOOST_CHECK_EQUAL(worker_count(0, 8u, 2), 2u);            // quota above the host
  BOOST_CHECK_EQUAL(worker_count(0, std::nullopt, 4), 4u);  // no limit: the host
  BOOST_CHECK_EQUAL(worker_count(0, std::nullopt, 0), 1u);  // unknown host
  BOOST_CHECK_EQUAL(worker_count(0, 3u, 0), 3u);
}

BOOST_AUTO_TEST_SUITE_END()
