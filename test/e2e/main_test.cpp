// Test module of the end-to-end suite: schedopt-sim and schedopt run as separate processes.
#define BOOST_TEST_MODULE e2e
#include <boost/test/unit_test.hpp>
