// Exec credential plugins run for real: /bin/sh scripts written to a temp dir print an
// ExecCredential, fail, print garbage, hang or rotate their token; one end to end against
// schedopt-sim, whose API server accepts only its own token.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "k8s/cluster_config.hpp"
#include "k8s/exec_credential.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;

namespace {

template <class T>
std::string why(const schedopt::expected<T>& got) {
  return got ? std::string{} : got.err().message;
}

struct script_dir {
  std::string path;
  script_dir() {
    char tmpl[] = "/tmp/schedopt-exec-plugin-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~script_dir() {
    std::string cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0) {
    }
  }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string write(const std::string& name, const std::string& text, bool executable = false) const {
    auto p = file(name);
    {
      std::ofstream out{p};
      out << text;
    }
    if (executable)
      chmod(p.c_str(), 0755);
    return p;
  }
  std::string read(const std::string& name) const {
    std::ifstream in{file(name)};
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // A plugin that counts its runs in <dir>/runs and prints `status` (JSON members).
  std::string plugin(const std::string& name, const std::string& status,
                     const std::string& api_version = "client.authentication.k8s.io/v1") const {
    return write(name,
                 "#!/bin/sh\necho run >> '" + file("runs") + "'\n"
                 "cat <<EOF\n{\"kind\":\"ExecCredential\",\"apiVersion\":\"" + api_version
                   + "\",\"status\":{" + status + "}}\nEOF\n",
                 true);
  }
  int runs() const {
    auto text = read("runs");
    int n = 0;
    for (char c : text)
      n += c == '\n';
    return n;
  }
};

k8s::exec_config config_for(const std::string& command) {
  k8s::exec_config cfg;
  cfg.command = command;
  cfg.api_version = "client.authentication.k8s.io/v1";
  cfg.user = "u";
  return cfg;
}

void check_one_line_error(const schedopt::expected<k8s::exec_credential>& got,
                          const std::vector<std::string>& wants) {
  BOOST_REQUIRE(!got.has_value());
  const auto& msg = got.err().message;
  BOOST_TEST_MESSAGE(msg);
  BOOST_CHECK(got.err().code == schedopt::ec::config_error);
  BOOST_CHECK(msg.find('\n') == std::string::npos);
  for (const auto& want : wants)
    BOOST_CHECK_MESSAGE(msg.find(want) != std::string::npos, msg + " lacks " + want);
}

} // namespace

BOOST_AUTO_TEST_CASE(exec_plugin_gets_args_env_and_exec_info) {
  script_dir d;
  auto cmd = d.write("plugin.sh",
                     "#!/bin/sh\nprintf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + d.file("info") + "'\n"
                     "printf '%s %s %s' \"$1\" \"$2\" \"$FOO\" > '" + d.file("args") + "'\n"
                     "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/v1\","
                     "\"status\":{\"token\":\"tok-1\",\"expirationTimestamp\":\"2999-01-02T03:04:05Z\"}}'\n",
                     true);
  auto cfg = config_for(cmd);
  cfg.args = {"get-token", "--cluster=x"};
  cfg.env = {{"FOO", "bar"}};
  cfg.provide_cluster_info = true;
  cfg.server = "https://127.0.0.1:1";
  cfg.ca_data = "hello";
  auto got = k8s::run_exec_plugin(cfg);
  BOOST_REQUIRE_MESSAGE(got.has_value(), why(got));
  BOOST_CHECK_EQUAL(got->token, "tok-1");
  BOOST_REQUIRE(got->expires.has_value());
  BOOST_CHECK(*got->expires > std::chrono::system_clock::now() + std::chrono::hours{24 * 365});
  BOOST_CHECK_EQUAL(d.read("args"), "get-token --cluster=x bar");
  auto info = nlohmann::json::parse(d.read("info"));
  BOOST_CHECK_EQUAL(info["kind"], "ExecCredential");
  BOOST_CHECK_EQUAL(info["apiVersion"], "client.authentication.k8s.io/v1");
  BOOST_CHECK_EQUAL(info["spec"]["interactive"], false);
  BOOST_CHECK_EQUAL(info["spec"]["cluster"]["server"], "https://127.0.0.1:1");
  BOOST_CHECK_EQUAL(info["spec"]["cluster"]["certificate-authority-data"], "aGVsbG8=");
}

BOOST_AUTO_TEST_CASE(exec_plugin_client_certificate_and_v1beta1) {
  script_dir d;
  auto cmd = d.plugin("cert.sh", "\"clientCertificateData\":\"CERT\",\"clientKeyData\":\"KEY\"",
                      "client.authentication.k8s.io/v1beta1");
  auto cfg = config_for(cmd);
  cfg.api_version = "client.authentication.k8s.io/v1beta1";
  auto got = k8s::run_exec_plugin(cfg);
  BOOST_REQUIRE_MESSAGE(got.has_value(), why(got));
  BOOST_CHECK(got->token.empty());
  BOOST_CHECK_EQUAL(got->client_cert_data, "CERT");
  BOOST_CHECK_EQUAL(got->client_key_data, "KEY");
  BOOST_CHECK(!got->expires.has_value());
  // The plugin must answer in the version it was asked for.
  check_one_line_error(k8s::run_exec_plugin(config_for(cmd)),
                       {"\"" + cmd + "\"", "returned apiVersion \"client.authentication.k8s.io/v1beta1\""});
}

BOOST_AUTO_TEST_CASE(failing_plugins_give_one_line_errors_naming_them) {
  script_dir d;
  auto fails = d.write("fails.sh", "#!/bin/sh\necho 'login expired: run sso' >&2\necho 'more detail' >&2\nexit 1\n", true);
  check_one_line_error(k8s::run_exec_plugin(config_for(fails)),
                       {"exec plugin \"" + fails + "\" (user \"u\")", "exit code 1",
                        "login expired: run sso"});
  BOOST_CHECK(k8s::run_exec_plugin(config_for(fails)).err().message.find("more detail")
              == std::string::npos);

  auto garbage = d.write("garbage.sh", "#!/bin/sh\necho 'this is not json'\n", true);
  check_one_line_error(k8s::run_exec_plugin(config_for(garbage)),
                       {garbage, "not an ExecCredential", "this is not json"});

  auto empty = d.plugin("empty.sh", "");
  check_one_line_error(k8s::run_exec_plugin(config_for(empty)), {"neither a token"});
  auto half = d.plugin("half.sh", "\"clientCertificateData\":\"CERT\"");
  check_one_line_error(k8s::run_exec_plugin(config_for(half)), {"only one of"});
  auto bad_time = d.plugin("badtime.sh", "\"token\":\"t\",\"expirationTimestamp\":\"tomorrow\"");
  check_one_line_error(k8s::run_exec_plugin(config_for(bad_time)), {"expirationTimestamp"});

  auto missing = config_for(d.file("not-installed"));
  missing.install_hint = "Install it with:\n  apt install the-plugin";
  check_one_line_error(k8s::run_exec_plugin(missing),
                       {d.file("not-installed"), "not found",
                        "install hint: Install it with:   apt install the-plugin"});
  auto on_path = config_for("schedopt-no-such-plugin");
  check_one_line_error(k8s::run_exec_plugin(on_path), {"\"schedopt-no-such-plugin\"", "not found"});
}

BOOST_AUTO_TEST_CASE(plugins_are_bounded_in_time_and_output) {
  script_dir d;
  auto hangs = d.write("hangs.sh", "#!/bin/sh\nexec sleep 30\n", true);
  k8s::exec_limits quick;
  quick.timeout = 300ms;
  auto started = std::chrono::steady_clock::now();
  check_one_line_error(k8s::run_exec_plugin(config_for(hangs), quick),
                       {hangs, "did not finish within 300 ms"});
  BOOST_CHECK(std::chrono::steady_clock::now() - started < 10s);

  auto floods = d.write("floods.sh", "#!/bin/sh\nhead -c 300000 /dev/zero | tr '\\0' x\n", true);
  k8s::exec_limits small;
  small.max_output = 100000;
  check_one_line_error(k8s::run_exec_plugin(config_for(floods), small),
                       {floods, "stdout exceeds 100000 bytes"});
}

// The cached credential serves until its expirationTimestamp, then the plugin runs again;
// after a 401 it runs once however many requests saw the old token.
BOOST_AUTO_TEST_CASE(credential_source_refreshes_on_expiry_and_after_401) {
  script_dir d;
  auto cmd = d.write("expiring.sh",
                     "#!/bin/sh\necho run >> '" + d.file("runs") + "'\n"
                     "n=$(wc -l < '" + d.file("runs") + "')\n"
                     "exp=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%SZ)\n"
                     "echo \"{\\\"kind\\\":\\\"ExecCredential\\\",\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\","
                     "\\\"status\\\":{\\\"token\\\":\\\"tok-$n\\\",\\\"expirationTimestamp\\\":\\\"$exp\\\"}}\"\n",
                     true);
  k8s::exec_credential_source source{config_for(cmd)};
  auto one = source.get();
  BOOST_REQUIRE_MESSAGE(one.has_value(), why(one));
  BOOST_CHECK_EQUAL(one->token, "tok-1");
  BOOST_CHECK_EQUAL(source.get()->token, "tok-1"); // cached
  BOOST_CHECK_EQUAL(d.runs(), 1);
  std::this_thread::sleep_for(3s);
  BOOST_CHECK_EQUAL(source.get()->token, "tok-2"); // expired: run again
  BOOST_CHECK_EQUAL(d.runs(), 2);

  auto after_401 = source.refresh_after_unauthorized("tok-2");
  BOOST_REQUIRE(after_401.has_value());
  BOOST_CHECK_EQUAL(after_401->token, "tok-3");
  // A second request that went out with tok-2 finds it rotated already.
  BOOST_CHECK_EQUAL(source.refresh_after_unauthorized("tok-2")->token, "tok-3");
  BOOST_CHECK_EQUAL(d.runs(), 3);
  BOOST_CHECK_EQUAL(source.runs(), 3u);
}

namespace {

// A kubeconfig for the simulator whose user is an exec plugin (relative to the kubeconfig).
std::string exec_kubeconfig(const schedopt::test::sim_process& sim, const script_dir& d,
                            const std::string& user) {
  auto sim_cfg = k8s::load_kubeconfig(sim.kubeconfig());
  BOOST_REQUIRE_MESSAGE(sim_cfg.has_value(), why(sim_cfg));
  d.write("ca.crt", sim_cfg->ca_data);
  return d.write("kubeconfig",
                 "apiVersion: v1\nkind: Config\ncurrent-context: sim\n"
                 "clusters:\n- name: sim\n  cluster:\n    server: " + sim_cfg->server
                   + "\n    certificate-authority: ca.crt\n"
                     "contexts:\n- name: sim\n  context:\n    cluster: sim\n    user: exec-user\n"
                     "users:\n- name: exec-user\n  user:\n" + user);
}

} // namespace

// End to end: the simulator's API server takes only its own bearer token; the exec plugin
// first hands out a stale one, the 401 makes the client run it again and resend.
BOOST_AUTO_TEST_CASE(exec_plugin_token_authenticates_against_the_simulator) {
  schedopt::test::sim_process sim{{"--vmis", "1", "--nodes", "2"}};
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  script_dir d;
  std::string plugin_dir = d.file("plugin");
  mkdir(plugin_dir.c_str(), 0755);
  d.write("plugin/rotate.sh",
          "#!/bin/sh\necho run >> '" + d.file("runs") + "'\n"
          "if [ \"$(wc -l < '" + d.file("runs") + "')\" -eq 1 ]; then tok=stale; else tok='"
            + sim.token() + "'; fi\n"
          "echo \"{\\\"kind\\\":\\\"ExecCredential\\\",\\\"apiVersion\\\":\\\"client.authentication.k8s.io/v1\\\","
          "\\\"status\\\":{\\\"token\\\":\\\"$tok\\\"}}\"\n",
          true);
  auto path = exec_kubeconfig(sim, d,
                              "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                              "      command: ./plugin/rotate.sh\n      interactiveMode: Never\n");
  auto cfg = k8s::load_cluster_config(path);
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), why(cfg));
  BOOST_REQUIRE(cfg->exec.has_value());
  BOOST_CHECK_EQUAL(cfg->exec->command, d.path + "/plugin/rotate.sh");

  schedopt::test::actor_env env;
  auto client = schedopt::spawn_api_client(*env.sys, *cfg, {});
  BOOST_REQUIRE(client);
  env.own(*client);
  caf::scoped_actor self{*env.sys};
  k8s::list_response listed;
  caf::error failed;
  k8s::list_request nodes;
  nodes.res = res::nodes;
  self->request(*client, 60s, nodes)
    .receive([&](k8s::list_response& r) { listed = std::move(r); },
             [&](caf::error& e) { failed = std::move(e); });
  BOOST_REQUIRE_MESSAGE(!failed, schedopt::error_message(failed));
  BOOST_REQUIRE_EQUAL(listed.pages.size(), 1u);
  BOOST_CHECK(!nlohmann::json::parse(listed.pages[0])["items"].empty());
  BOOST_CHECK_EQUAL(d.runs(), 2); // once at start (stale), once after the 401
}

// A plugin that cannot run stops the client's start with its own error, not a 401 later;
// a tokenFile rewritten while the client runs is read again after a 401.
BOOST_AUTO_TEST_CASE(failing_plugin_stops_the_start_and_token_file_is_reread) {
  schedopt::test::sim_process sim{{"--vmis", "1", "--nodes", "2"}};
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  script_dir d;
  d.write("fails.sh", "#!/bin/sh\necho 'no session: run login' >&2\nexit 3\n", true);
  auto path = exec_kubeconfig(sim, d,
                              "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                              "      command: ./fails.sh\n");
  auto cfg = k8s::load_cluster_config(path);
  BOOST_REQUIRE(cfg.has_value());
  schedopt::test::actor_env env;
  auto refused = schedopt::spawn_api_client(*env.sys, *cfg, {});
  BOOST_REQUIRE(!refused);
  auto msg = schedopt::error_message(refused.error());
  BOOST_TEST_MESSAGE(msg);
  BOOST_CHECK_MESSAGE(msg.find("fails.sh") != std::string::npos
                        && msg.find("exit code 3: no session: run login") != std::string::npos,
                      msg);

  d.write("token", "stale\n");
  auto with_file = exec_kubeconfig(sim, d, "    tokenFile: token\n");
  auto file_cfg = k8s::load_cluster_config(with_file);
  BOOST_REQUIRE_MESSAGE(file_cfg.has_value(), why(file_cfg));
  BOOST_CHECK_EQUAL(file_cfg->token, "stale");
  auto client = schedopt::spawn_api_client(*env.sys, *file_cfg, {});
  BOOST_REQUIRE(client);
  env.own(*client);
  d.write("token", sim.token() + "\n"); // rotated, as the kubelet rotates projected tokens
  caf::scoped_actor self{*env.sys};
  caf::error failed;
  self->request(*client, 60s, k8s::get_request{res::nodes, "", "missing", {}})
    .receive([&](k8s::api_response&) {}, [&](caf::error& e) { failed = std::move(e); });
  // Authenticated after the re-read: the server's answer is a 404, not a 401.
  BOOST_REQUIRE(failed);
  BOOST_CHECK_MESSAGE(schedopt::error_code(failed) == schedopt::ec::not_found,
                      schedopt::error_message(failed));
}
