// Test module of model/: codecs, durations, timestamps, reasons, scoring, outcomes.
#define BOOST_TEST_MODULE model
#include <boost/test/unit_test.hpp>
