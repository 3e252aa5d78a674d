// Test module of the chaos harness: a real schedopt-sim and real schedopt processes,
// killed, faulted and failed over, judged by the simulator's audit (GET /admin/audit).
#define BOOST_TEST_MODULE chaos
#include <boost/test/unit_test.hpp>
