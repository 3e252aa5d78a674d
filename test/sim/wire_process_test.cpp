// Wire-level: the schedopt-sim process (flags, exit codes, faults, admin failover).
#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

namespace {

struct run_result {
  int exit_code = -1;
  std::string output;
};

run_result run(const std::string& args) {
  run_result r;
  std::string cmd = sim_process::binary() + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr)
    return r;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr)
    r.output += buf.data();
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(wire_process)

BOOST_AUTO_TEST_CASE(help_and_bad_flags) {
  auto help = run("--help");
  BOOST_TEST(help.exit_code == 0);
  BOOST_TEST(help.output.find("serve") != std::string::npos);
  auto serve_help = run("serve --help");
  BOOST_TEST(serve_help.exit_code == 0);
  BOOST_TEST(serve_help.output.find("--fault-429-rate") != std::string::npos);
  auto bad = run("serve --kubeconfig-out /tmp/x --no-such-flag 1");
  BOOST_TEST(bad.exit_code == 2);
  BOOST_TEST(std::count(bad.output.begin(), bad.output.end(), '\n') == 1);
  BOOST_TEST(bad.output.find("--no-such-flag") != std::string::npos);
  auto bad_duration = run("serve --kubeconfig-out /tmp/x --latency 5parsecs");
  BOOST_TEST(bad_duration.exit_code == 2);
  auto missing = run("serve");
  BOOST_TEST(missing.exit_code == 2);
  BOOST_TEST(missing.output.find("--kubeconfig-out") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sigterm_stops_cleanly) {
  sim_process sim({"--nodes", "2", "--vmis", "2"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  BOOST_TEST(sim.url().rfind("https://127.0.0.1:", 0) == 0u);
  watch_reader watch(sim, "/api/v1/namespaces/default/configmaps?watch=true");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  BOOST_TEST(sim.stop() == 0);
}

// sim/CMakeLists.txt: the serving process allocates with jemalloc (its start at 100,000
// VMIs depends on it), so the library is mapped into it. Sanitizer builds keep the
// sanitizer's allocator, and then jemalloc must not be there to fight it.
BOOST_AUTO_TEST_CASE(serve_allocates_with_jemalloc_outside_sanitizer_builds) {
  sim_process sim({"--nodes", "2", "--vmis", "2"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  std::ifstream in("/proc/" + std::to_string(sim.pid()) + "/maps");
  std::string maps((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const bool mapped = maps.find("libjemalloc.so") != std::string::npos;
  BOOST_TEST(mapped == bool(SCHEDOPT_SIM_JEMALLOC));
  BOOST_TEST(sim.stop() == 0);
}

BOOST_AUTO_TEST_CASE(injected_429_carries_retry_after) {
  sim_process sim({"--nodes", "2", "--vmis", "2", "--fault-429-rate", "1"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto reply = http_request(sim, "GET", "/api/v1/namespaces");
  BOOST_TEST(reply.status == 429);
  BOOST_TEST(reply.has_header("Retry-After: 1"));
  BOOST_TEST(reply.json()["reason"] == "TooManyRequests");
  BOOST_TEST(reply.json()["kind"] == "Status");
  BOOST_TEST(http_request(sim, "GET", "/healthz").status == 200);
}

BOOST_AUTO_TEST_CASE(injected_5xx) {
  sim_process sim({"--nodes", "2", "--vmis", "2", "--fault-5xx-rate", "1"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto reply = http_request(sim, "GET", "/apis");
  BOOST_TEST(reply.status == 500);
  BOOST_TEST(reply.json()["reason"] == "InternalError");
}

BOOST_AUTO_TEST_CASE(watch_drop_after_closes_streams) {
  sim_process sim({"--nodes", "2", "--vmis", "2", "--watch-drop-after", "1s"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  watch_reader watch(sim, "/api/v1/namespaces/default/configmaps?watch=true");
  BOOST_TEST(watch.wait_finished(std::chrono::seconds(15)));
}

BOOST_AUTO_TEST_CASE(latency_is_added_to_api_requests_only) {
  sim_process sim({"--nodes", "2", "--vmis", "2", "--latency", "400ms"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto start = std::chrono::steady_clock::now();
  BOOST_TEST(http_request(sim, "GET", "/api/v1/namespaces").status == 200);
  auto elapsed = std::chrono::steady_clock::now() - start;
  // A lower bound only: the request cannot be faster than the injected latency.
  BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count() >= 400);
}

BOOST_AUTO_TEST_CASE(failover_after_creates_a_request_by_itself) {
  sim_process sim({"--nodes", "3", "--vmis", "6", "--failover-after", "500ms"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  bool created = false;
  for (int i = 0; i < 100 && !created; ++i) {
    auto list = http_request(sim, "GET", schedopt_path).json();
    created = list["items"].is_array() && !list["items"].empty();
    if (!created)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  BOOST_TEST(created);
}

BOOST_AUTO_TEST_CASE(admin_failover_creates_a_request) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  BOOST_TEST(http_request(sim, "POST", "/admin/failover", {}, {}, "").status == 401);
  auto reply = http_request(sim, "POST", "/admin/failover");
  BOOST_TEST(reply.status == 200, reply.body);
  auto name = reply.json().value("request", "");
  BOOST_REQUIRE(!name.empty());
  BOOST_TEST(http_request(sim, "GET", schedopt_path + "/" + name).status == 200);
}

BOOST_AUTO_TEST_CASE(sdk_endpoint_file_is_written) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  BOOST_TEST(sim.sdk_url().rfind("http://127.0.0.1:", 0) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
