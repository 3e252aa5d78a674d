// Test module of the differential suite: one corpus of requests replayed against
// kube-apiserver (test/controlplane) and against schedopt-sim's own API server.
#define BOOST_TEST_MODULE differential
#include <boost/test/unit_test.hpp>
