// docs/design.md §6: Portworx with PX-Security and TLS on. The simulator's SDK gateway
// serves HTTPS with a CA of its own and answers 401 without the bearer token; the
// controller reaches it with portworxCaFile and portworxTokenFile (the token read from a
// file, as from a mounted Secret), and a CA that did not sign the gateway's certificate
// fails the run with an error naming the endpoint and the CA file. A token over plain
// http:// is refused before anything starts (bad_input_cli_test.cpp).
#include <cstdio>
#include <string>

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "e2e/bad_input.hpp"

using namespace schedopt::e2e;

namespace {

const std::string sdk_token = "px-admin-token";

/// A path for the gateway's CA, removed when the case ends.
struct ca_path {
  std::string path = "/tmp/schedopt-px-tls-" + std::to_string(getpid()) + "-sdk-ca.crt";
  ~ca_path() { std::remove(path.c_str()); }
};

/// The bad-input fleet behind a gateway with PX-Security and TLS on.
std::vector<std::string> secured_fleet(const std::string& seed, const ca_path& ca) {
  return with_flags(fleet_flags(seed), {"--sdk-token", sdk_token, "--sdk-ca-out", ca.path});
}

} // namespace

BOOST_AUTO_TEST_SUITE(portworx_tls)

BOOST_AUTO_TEST_CASE(a_token_over_https_with_the_gateways_ca_converges) {
  ca_path ca;
  scenario s("portworx", secured_fleet("41", ca));
  BOOST_REQUIRE(s.sim().sdk_url().rfind("https://127.0.0.1:", 0) == 0);
  // The gateway as Portworx with security on: no token, no answer.
  auto refused = sdk_get(s.sim(), "/v1/nodes", false);
  BOOST_TEST(refused.status == 401);
  BOOST_TEST(refused.body.find("Invalid or missing authentication token") != std::string::npos, refused.body);
  BOOST_TEST(sdk_get(s.sim(), "/v1/nodes").status == 200);

  auto candidates = required_candidates(s.truth()); // through the gateway, as the controller sees it
  auto& ctl = s.start_controller(); // with --portworx-ca-file and --portworx-token-file
  s.create_request("over-tls", scenario::enabled_spec());
  auto done = s.wait_final("over-tls");
  // Every SDK call carried the token: one refused would have failed the run.
  expect_every_candidate_migrated(s.sim(), done, candidates);
  // Recomputed from the objects: no candidate is left off its replicas.
  for (auto& t : s.truth())
    BOOST_TEST_CONTEXT("vm " << t.key() << " on " << t.node) {
      BOOST_TEST(!(t.misplaced && t.live_migratable && !t.targets.empty() && t.error.empty()));
    }
  // The token file's content is never logged (the path is a setting, the token is not).
  BOOST_TEST(ctl.log_tail(10000).find(sdk_token) == std::string::npos);
  BOOST_TEST(ctl.terminate() == 0);
}

BOOST_AUTO_TEST_CASE(a_wrong_ca_fails_the_run_with_a_tls_driver_error) {
  ca_path ca;
  scenario s("portworx", secured_fleet("43", ca));
  // The cluster's CA instead of Portworx's: a plausible mistake, and one that cannot
  // verify the gateway. The last flag wins over the one client_args adds.
  s.start_controller({"--portworx-ca-file", s.sim().ca_file()});
  s.create_request("wrong-ca", scenario::enabled_spec());
  auto done = s.wait_final("wrong-ca");
  BOOST_TEST(status_of_request(done) == "Failed", done.dump());
  auto reason = reason_of_request(done);
  BOOST_TEST(reason.rfind("driver failure: portworx: ", 0) == 0u, reason);
  BOOST_TEST(reason.find("TLS verification of " + s.sim().sdk_url() + " failed: ") != std::string::npos, reason);
  BOOST_TEST(reason.find("(verified against portworxCaFile " + s.sim().ca_file() + ")") != std::string::npos,
             reason);
  BOOST_TEST(reason.find("gave up after") == std::string::npos, reason); // not retried
  BOOST_TEST(s.schedopt_vmims().empty());
  BOOST_TEST(s.controller().running());
  BOOST_TEST(s.controller().terminate() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
