// Test module of the deploy suite: the image built by deploy/image and the manifests of
// deploy/, run against schedopt-sim as a cluster would run them.
#define BOOST_TEST_MODULE deploy
#include <boost/test/unit_test.hpp>
