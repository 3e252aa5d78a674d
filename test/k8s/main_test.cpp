#define BOOST_TEST_MODULE k8s
#include <boost/test/unit_test.hpp>
