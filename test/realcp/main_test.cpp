// Test module of the real-control-plane suite: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler and kwok built from upstream (test/controlplane), the simulator attached.
#define BOOST_TEST_MODULE realcp
#include <boost/test/unit_test.hpp>
