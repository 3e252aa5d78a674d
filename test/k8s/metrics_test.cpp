// Prometheus registry: counters, gauges, histograms with labels, text format.
#include <boost/test/unit_test.hpp>

#include <thread>
#include <vector>

#include "k8s/metrics.hpp"

using schedopt::k8s::metrics_registry;

BOOST_AUTO_TEST_CASE(metrics_render_text_exposition) {
  metrics_registry m;
  m.describe_counter("api_requests_total", "API requests.");
  m.counter_add("api_requests_total", {{"verb", "get"}, {"code", "200"}});
  m.counter_add("api_requests_total", {{"verb", "get"}, {"code", "200"}}, 2);
  m.gauge_set("inflight", {}, 3);
  m.describe_histogram("latency_seconds", "Latency.", {0.1, 1});
  m.observe("latency_seconds", {{"verb", "get"}}, 0.05);
  m.observe("latency_seconds", {{"verb", "get"}}, 0.5);
  m.observe("latency_seconds", {{"verb", "get"}}, 5);
  auto text = m.render();
  BOOST_CHECK(text.find("# HELP api_requests_total API requests.\n") != std::string::npos);
  BOOST_CHECK(text.find("# TYPE api_requests_total counter\n") != std::string::npos);
  BOOST_CHECK(text.find("api_requests_total{verb=\"get\",code=\"200\"} 3\n") != std::string::npos);
  BOOST_CHECK(text.find("inflight 3\n") != std::string::npos);
  BOOST_CHECK(text.find("latency_seconds_bucket{verb=\"get\",le=\"0.1\"} 1\n") != std::string::npos);
  BOOST_CHECK(text.find("latency_seconds_bucket{verb=\"get\",le=\"1\"} 2\n") != std::string::npos);
  BOOST_CHECK(text.find("latency_seconds_bucket{verb=\"get\",le=\"+Inf\"} 3\n") != std::string::npos);
  BOOST_CHECK(text.find("latency_seconds_count{verb=\"get\"} 3\n") != std::string::npos);
  BOOST_CHECK(text.find("latency_seconds_sum{verb=\"get\"} 5.55\n") != std::string::npos);
  BOOST_CHECK_EQUAL(m.value("api_requests_total", {{"verb", "get"}, {"code", "200"}}), 3);
}

BOOST_AUTO_TEST_CASE(metrics_escape_label_values) {
  metrics_registry m;
  m.counter_add("c", {{"msg", "a\"b\\c\nd"}});
  BOOST_CHECK(m.render().find("c{msg=\"a\\\"b\\\\c\\nd\"} 1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(metrics_are_thread_safe) {
  metrics_registry m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        m.counter_add("n", {{"k", "v"}});
        m.observe("h", {}, 0.01);
      }
    });
  for (auto& t : threads)
    t.join();
  BOOST_CHECK_EQUAL(m.value("n", {{"k", "v"}}), 40000);
  BOOST_CHECK_EQUAL(m.count("h"), 40000u);
}
