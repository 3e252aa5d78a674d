// Prometheus registry: counters, gauges, histograms with labels, text format.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <ctime>
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

// Histograms: cumulative buckets (an observation on a bound counts in it), +Inf = count,
// sum and count per label set; series of one family share its buckets.
BOOST_AUTO_TEST_CASE(metrics_histogram_buckets_sum_and_count_per_series) {
  metrics_registry m;
  m.describe_histogram("schedopt_migration_duration_seconds", "Migration time.",
                       {5, 10, 30, 60, 120, 300, 600, 1800, 3600});
  for (double v : {3.0, 10.0, 45.0, 4000.0})
    m.observe("schedopt_migration_duration_seconds", {{"outcome", "successful"}}, v);
  m.observe("schedopt_migration_duration_seconds", {{"outcome", "failed"}}, 0.5);
  auto text = m.render();
  auto has = [&](const std::string& line) {
    BOOST_TEST_CONTEXT(line) { BOOST_CHECK(text.find(line + "\n") != std::string::npos); }
  };
  has("# HELP schedopt_migration_duration_seconds Migration time.");
  has("# TYPE schedopt_migration_duration_seconds histogram");
  const std::string s = "schedopt_migration_duration_seconds";
  has(s + "_bucket{outcome=\"successful\",le=\"5\"} 1");
  has(s + "_bucket{outcome=\"successful\",le=\"10\"} 2");
  has(s + "_bucket{outcome=\"successful\",le=\"30\"} 2");
  has(s + "_bucket{outcome=\"successful\",le=\"60\"} 3");
  has(s + "_bucket{outcome=\"successful\",le=\"3600\"} 3");
  has(s + "_bucket{outcome=\"successful\",le=\"+Inf\"} 4");
  has(s + "_sum{outcome=\"successful\"} 4058");
  has(s + "_count{outcome=\"successful\"} 4");
  has(s + "_bucket{outcome=\"failed\",le=\"5\"} 1");
  has(s + "_bucket{outcome=\"failed\",le=\"+Inf\"} 1");
  has(s + "_sum{outcome=\"failed\"} 0.5");
  has(s + "_count{outcome=\"failed\"} 1");
  // One TYPE line per family, before all of its samples.
  BOOST_CHECK_EQUAL(text.find("# TYPE " + s), text.rfind("# TYPE " + s));
  BOOST_CHECK_LT(text.find("# TYPE " + s), text.find(s + "_bucket"));
  BOOST_CHECK_EQUAL(m.count(s, {{"outcome", "successful"}}), 4u);
}

BOOST_AUTO_TEST_CASE(metrics_help_text_is_escaped) {
  metrics_registry m;
  m.describe_gauge("g", "line one\nback\\slash");
  m.gauge_set("g", {}, 1);
  BOOST_CHECK(m.render().find("# HELP g line one\\nback\\\\slash\n") != std::string::npos);
}

// A gauge with labels and value 1, as schedopt_build_info.
BOOST_AUTO_TEST_CASE(metrics_info_gauge_renders_its_labels) {
  metrics_registry m;
  m.describe_gauge("schedopt_build_info", "Build.");
  m.gauge_set("schedopt_build_info", {{"version", "0.1.0"}, {"revision", "abc1234"}}, 1);
  auto text = m.render();
  BOOST_CHECK(text.find("# TYPE schedopt_build_info gauge\n") != std::string::npos);
  BOOST_CHECK(text.find("schedopt_build_info{version=\"0.1.0\",revision=\"abc1234\"} 1\n")
              != std::string::npos);
}

// Collectors run at each render, outside the registry's lock (they set values).
BOOST_AUTO_TEST_CASE(metrics_collectors_run_at_scrape_time) {
  metrics_registry m;
  int calls = 0;
  m.add_collector([&](metrics_registry& r) { r.gauge_set("scrapes", {}, ++calls); });
  BOOST_CHECK(m.render().find("scrapes 1\n") != std::string::npos);
  BOOST_CHECK(m.render().find("scrapes 2\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(metrics_process_collector_reads_proc_self) {
  metrics_registry m;
  schedopt::k8s::register_process_metrics(m);
  auto text = m.render();
  BOOST_CHECK(text.find("# TYPE process_cpu_seconds_total counter\n") != std::string::npos);
  BOOST_CHECK(text.find("# TYPE process_resident_memory_bytes gauge\n") != std::string::npos);
  BOOST_CHECK_GT(m.value("process_resident_memory_bytes"), 1024 * 1024); // at least 1 MiB
  BOOST_CHECK_GE(m.value("process_cpu_seconds_total"), 0);
  BOOST_CHECK_GE(m.value("process_open_fds"), 3); // stdin, stdout, stderr
  auto now = static_cast<double>(std::time(nullptr));
  auto start = m.value("process_start_time_seconds");
  BOOST_CHECK_LE(start, now + 1);
  BOOST_CHECK_GT(start, now - 24 * 3600); // this test binary started recently
  // The fd count follows the process: one more open file, one more.
  auto before = m.value("process_open_fds");
  FILE* f = std::fopen("/proc/self/stat", "r");
  BOOST_REQUIRE(f);
  m.render();
  BOOST_CHECK_EQUAL(m.value("process_open_fds"), before + 1);
  std::fclose(f);
}
