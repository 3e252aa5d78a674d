// Boost.Test module of the deterministic actor tests (test_coordinator + mock actors).
#define BOOST_TEST_MODULE actors
#include <boost/test/unit_test.hpp>
