// Hostile input (docs/testing.md), command line: bad flag and environment values, settings files
// and kubeconfigs. Each is one line on stderr naming the input, exit code 2, before
// anything connects anywhere.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include <boost/test/unit_test.hpp>

#include "e2e/bad_input.hpp"

using namespace schedopt::e2e;

namespace {

struct cli_row {
  std::string label;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string line; // the one stderr line, after the log prefix of kubeconfig errors
};

std::string write_file(const std::string& name, const std::string& text) {
  auto path = "/tmp/schedopt-bad-input-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

std::string kubeconfig_with_ca_data(const std::string& ca_data) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n"
         "    server: https://127.0.0.1:1\n    certificate-authority-data: \""
         + ca_data + "\"\ncontexts:\n- name: c\n  context:\n    cluster: k\n    user: u\n"
                     "users:\n- name: u\n  user:\n    token: t\n";
}

/// Runs schedopt with `row.env` set for the child only (the variables are removed after).
std::unique_ptr<child_process> run_row(const cli_row& row) {
  for (auto& [name, value] : row.env)
    setenv(name.c_str(), value.c_str(), 1);
  auto p = std::make_unique<child_process>(row.args);
  for (auto& [name, value] : row.env)
    unsetenv(name.c_str());
  return p;
}

std::string without_log_prefix(std::string line) {
  // "2026-12-01T14:23:20.942Z error kubeconfig ...": the text after the level.
  const std::string level = " error ";
  auto at = line.find(level);
  if (at != std::string::npos && at < 40)
    line = line.substr(at + level.size());
  while (!line.empty() && line.back() == '\n')
    line.pop_back();
  return line;
}

} // namespace

BOOST_AUTO_TEST_SUITE(bad_input)

BOOST_AUTO_TEST_CASE(bad_flags_env_settings_and_kubeconfigs_are_one_line_and_exit_2) {
  auto bad_b64 = write_file("b64.yaml", kubeconfig_with_ca_data("!!!not base64!!!"));
  auto not_yaml = write_file("garbage.yaml", "{{{ not yaml");
  auto bad_settings = write_file("settings.yaml", "maxParallelMigrations: lots\n");
  auto inline_token = write_file("token.yaml", "portworxToken: s3cret\n");
  auto token_file = write_file("px-token", "s3cret\n");
  const std::string token_gone =
    "removed, a token there is readable by anyone who can read the pod spec or the ConfigMap: "
    "put it in a Secret mounted as a file and set portworxTokenFile (--portworx-token-file)";
  const std::string listen = "127.0.0.1:0";
  std::vector<cli_row> rows = {
    {"flag: bad duration", {"run", "--migration-timeout", "abc"}, {},
     "schedopt: --migration-timeout \"abc\": invalid duration \"abc\": expected a number followed by a unit (ns, us, ms, s, m, h)"},
    {"flag: integer overflow", {"run", "--max-parallel-migrations", "99999999999999999999"}, {},
     "schedopt: --max-parallel-migrations \"99999999999999999999\": integer out of range"},
    {"flag: unknown driver", {"run", "--driver", "nfs"}, {},
     "schedopt: --driver \"nfs\": must be one of csi-topology, longhorn, portworx"},
    {"env: not an integer", {"run"}, {{"SCHEDOPT_MAX_PARALLEL_MIGRATIONS", "lots"}},
     "schedopt: SCHEDOPT_MAX_PARALLEL_MIGRATIONS \"lots\": not an integer"},
    {"env: negative duration", {"run"}, {{"SCHEDOPT_MIGRATION_TIMEOUT", "-5m"}},
     "schedopt: SCHEDOPT_MIGRATION_TIMEOUT \"-5m\": invalid duration \"-5m\": negative duration"},
    {"settings file: missing", {"run", "--config", "/nonexistent/schedopt.yaml"}, {},
     "schedopt: /nonexistent/schedopt.yaml: cannot read: No such file or directory"},
    {"settings file: wrong type", {"run", "--config", bad_settings}, {},
     "schedopt: " + bad_settings + ": maxParallelMigrations: not an integer"},
    {"settings file: inline Portworx token", {"run", "--config", inline_token}, {},
     "schedopt: " + inline_token + ": portworxToken: " + token_gone},
    {"flag: inline Portworx token", {"run", "--portworx-token", "s3cret"}, {},
     "schedopt: --portworx-token: " + token_gone},
    {"env: inline Portworx token", {"run"}, {{"SCHEDOPT_PORTWORX_TOKEN", "s3cret"}},
     "schedopt: SCHEDOPT_PORTWORX_TOKEN: " + token_gone},
    {"flag: a token over plain http", {"run", "--portworx-endpoint", "http://127.0.0.1:9021",
                                       "--portworx-token-file", token_file}, {},
     "schedopt: portworxTokenFile (--portworx-token-file) is set but portworxEndpoint "
     "(--portworx-endpoint) \"http://127.0.0.1:9021\" is plain http://, which would send the "
     "Portworx token in clear text: use an https:// endpoint (portworxCaFile for its CA)"},
    {"kubeconfig: missing file", {"run", "--kubeconfig", "/nonexistent/kubeconfig", "--metrics-listen", listen}, {},
     "kubeconfig /nonexistent/kubeconfig: file not found"},
    {"kubeconfig: bad base64", {"run", "--kubeconfig", bad_b64, "--metrics-listen", listen}, {},
     "kubeconfig " + bad_b64 + ": cluster \"k\": certificate-authority-data: invalid base64 (unexpected character '!')"},
    {"kubeconfig: not YAML", {"plan", "--kubeconfig", not_yaml}, {},
     "kubeconfig " + not_yaml + ": invalid YAML at line 1: end of map flow not found"},
  };
  for (auto& row : rows)
    BOOST_TEST_CONTEXT("row " << row.label) {
      auto p = run_row(row);
      BOOST_TEST(p->wait_exit(std::chrono::seconds(30)) == 2);
      auto err = p->err();
      BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1, "stderr: " << err);
      BOOST_TEST(without_log_prefix(err) == row.line);
      BOOST_TEST(p->out().empty(), "stdout: " << p->out());
      BOOST_TEST(err.find("s3cret") == std::string::npos); // a token is never echoed
    }
  for (auto& f : {bad_b64, not_yaml, bad_settings, inline_token, token_file})
    std::remove(f.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
