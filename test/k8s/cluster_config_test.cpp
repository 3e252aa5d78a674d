// kubeconfig variants, broken kubeconfigs and the in-cluster layout in a temp dir.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#include "k8s/cluster_config.hpp"

using schedopt::k8s::load_in_cluster;
using schedopt::k8s::load_kubeconfig;

namespace {

struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/schedopt-k8s-config-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~temp_dir() {
    std::string cmd = "rm -rf '" + path + "'";
    if (std::system(cmd.c_str()) != 0) {
    }
  }
  std::string write(const std::string& name, const std::string& text) const {
    auto p = path + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
};

// "hello" / PEM-ish text in base64.
const char* hello_b64 = "aGVsbG8=";

std::string kubeconfig(const std::string& cluster_extra, const std::string& user_extra,
                       const std::string& current = "ctx") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + current
         + "\nclusters:\n- name: c\n  cluster:\n" + cluster_extra
         + "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n    namespace: team\n"
           "- name: other\n  context:\n    cluster: c\n    user: u\n"
           "users:\n- name: u\n  user:\n"
         + user_extra;
}

} // namespace

BOOST_AUTO_TEST_CASE(kubeconfig_with_inline_ca_and_token) {
  temp_dir d;
  auto p = d.write("config", kubeconfig("    server: https://127.0.0.1:6443/\n"
                                        "    certificate-authority-data: "
                                          + std::string{hello_b64} + "\n",
                                        "    token: abc\n"));
  auto cfg = load_kubeconfig(p);
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), (cfg ? std::string{} : cfg.err().message));
  BOOST_CHECK_EQUAL(cfg->server, "https://127.0.0.1:6443");
  BOOST_CHECK_EQUAL(cfg->ca_data, "hello");
  BOOST_CHECK_EQUAL(cfg->token, "abc");
  BOOST_CHECK_EQUAL(cfg->namespace_, "team");
  BOOST_CHECK(!cfg->insecure_skip_tls_verify);
}

BOOST_AUTO_TEST_CASE(kubeconfig_with_files_relative_to_its_directory_and_other_context) {
  temp_dir d;
  d.write("ca.crt", "CA");
  d.write("tok", "  file-token\n");
  d.write("client.crt", "CERT");
  d.write("client.key", "KEY");
  auto p = d.write("config", kubeconfig("    server: https://k:443\n"
                                        "    certificate-authority: ca.crt\n",
                                        "    tokenFile: tok\n"
                                        "    client-certificate: client.crt\n"
                                        "    client-key: client.key\n"));
  auto cfg = load_kubeconfig(p, "other");
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), (cfg ? std::string{} : cfg.err().message));
  BOOST_CHECK_EQUAL(cfg->ca_file, d.path + "/ca.crt");
  BOOST_CHECK_EQUAL(cfg->token, "file-token");
  BOOST_CHECK_EQUAL(cfg->token_file, d.path + "/tok");
  BOOST_CHECK_EQUAL(cfg->client_cert_file, d.path + "/client.crt");
  BOOST_CHECK_EQUAL(cfg->namespace_, "default");
}

BOOST_AUTO_TEST_CASE(kubeconfig_insecure_and_client_cert_data) {
  temp_dir d;
  auto p = d.write("config", kubeconfig("    server: https://k\n    insecure-skip-tls-verify: true\n",
                                        "    client-certificate-data: " + std::string{hello_b64}
                                          + "\n    client-key-data: " + hello_b64 + "\n"));
  auto cfg = load_kubeconfig(p);
  BOOST_REQUIRE(cfg.has_value());
  BOOST_CHECK(cfg->insecure_skip_tls_verify);
  BOOST_CHECK_EQUAL(cfg->client_cert_data, "hello");
  BOOST_CHECK_EQUAL(cfg->client_key_data, "hello");
}

BOOST_AUTO_TEST_CASE(broken_kubeconfigs_give_one_line_errors_naming_file_and_field) {
  temp_dir d;
  auto check = [&](const std::string& path, const std::string& context, const std::string& want) {
    auto cfg = load_kubeconfig(path, context);
    BOOST_REQUIRE(!cfg.has_value());
    const auto& msg = cfg.err().message;
    BOOST_TEST_MESSAGE(msg);
    BOOST_CHECK(cfg.err().code == schedopt::ec::config_error);
    BOOST_CHECK_MESSAGE(msg.find(path) != std::string::npos, msg);
    BOOST_CHECK_MESSAGE(msg.find(want) != std::string::npos, msg + " lacks " + want);
    BOOST_CHECK(msg.find('\n') == std::string::npos);
  };
  check(d.path + "/missing", "", "file not found");
  check(d.write("bad", "clusters: [\n  - {name: c\n"), "", "invalid YAML");
  check(d.write("noserver", kubeconfig("    insecure-skip-tls-verify: true\n", "    token: t\n")),
        "", "server missing");
  check(d.write("badb64", kubeconfig("    server: https://k\n    certificate-authority-data: 'not*base64'\n",
                                     "    token: t\n")),
        "", "certificate-authority-data");
  check(d.write("noctx", kubeconfig("    server: https://k\n", "    token: t\n", "nope")), "",
        "context \"nope\" not found");
  check(d.write("scalar", "just a string\n"), "", "not a kubeconfig");
  check(d.write("noca", kubeconfig("    server: https://k\n    certificate-authority: /nonexistent/ca\n",
                                   "    token: t\n")),
        "", "certificate-authority");
  check(d.write("badserver", kubeconfig("    server: ftp://k\n", "")), "", "server");
}

// The fuzz target calls parse_kubeconfig on bytes; that is only worth something if the
// file path gives exactly the same answer for the same bytes.
BOOST_AUTO_TEST_CASE(parse_kubeconfig_answers_as_loading_the_file_does) {
  temp_dir d;
  d.write("ca.crt", "CA");
  const std::string texts[] = {
    kubeconfig("    server: https://k:443/\n    certificate-authority: ca.crt\n", "    token: t\n"),
    kubeconfig("    server: https://k\n    certificate-authority: absent.crt\n", "    token: t\n"),
    kubeconfig("    server: ftp://k\n", ""),
    "clusters: [\n  - {name: c\n",
    "just a string\n",
    "",
  };
  for (const auto& text : texts) {
    for (const char* context : {"", "other", "nope"}) {
      auto path = d.write("config", text);
      auto loaded = load_kubeconfig(path, context);
      auto parsed = schedopt::k8s::parse_kubeconfig(text, path, context);
      BOOST_TEST_CONTEXT(text << " context '" << context << "'") {
        BOOST_REQUIRE_EQUAL(loaded.has_value(), parsed.has_value());
        if (loaded) {
          BOOST_CHECK_EQUAL(parsed->server, loaded->server);
          BOOST_CHECK_EQUAL(parsed->ca_file, loaded->ca_file);
          BOOST_CHECK_EQUAL(parsed->token, loaded->token);
          BOOST_CHECK_EQUAL(parsed->namespace_, loaded->namespace_);
          BOOST_CHECK_EQUAL(parsed->source, loaded->source);
        } else {
          BOOST_CHECK_EQUAL(parsed.err().message, loaded.err().message);
          BOOST_CHECK(parsed.err().code == loaded.err().code);
        }
      }
    }
  }
  // Relative paths hang off the named file's directory even though nothing was read.
  auto cfg = schedopt::k8s::parse_kubeconfig(texts[0], d.path + "/never-written", "");
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), (cfg ? std::string{} : cfg.err().message));
  BOOST_CHECK_EQUAL(cfg->ca_file, d.path + "/ca.crt");
  BOOST_CHECK_EQUAL(cfg->server, "https://k:443");
}

BOOST_AUTO_TEST_CASE(in_cluster_layout) {
  temp_dir d;
  d.write("token", "sa-token\n");
  d.write("ca.crt", "CA");
  d.write("namespace", "kube-system\n");
  setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto cfg = load_in_cluster(d.path);
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), (cfg ? std::string{} : cfg.err().message));
  BOOST_CHECK_EQUAL(cfg->server, "https://10.0.0.1:443");
  BOOST_CHECK_EQUAL(cfg->token, "sa-token");
  BOOST_CHECK_EQUAL(cfg->token_file, d.path + "/token");
  BOOST_CHECK_EQUAL(cfg->ca_file, d.path + "/ca.crt");
  BOOST_CHECK_EQUAL(cfg->namespace_, "kube-system");
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  auto v6 = load_in_cluster(d.path);
  BOOST_REQUIRE(v6.has_value());
  BOOST_CHECK_EQUAL(v6->server, "https://[fd00::1]:443");
  // Missing token file.
  temp_dir empty;
  auto none = load_in_cluster(empty.path);
  BOOST_CHECK(!none.has_value());
  unsetenv("KUBERNETES_SERVICE_HOST");
  auto noenv = load_in_cluster(d.path);
  BOOST_REQUIRE(!noenv.has_value());
  BOOST_CHECK(noenv.err().message.find("KUBERNETES_SERVICE_HOST") != std::string::npos);
  unsetenv("KUBERNETES_SERVICE_PORT");
}

BOOST_AUTO_TEST_CASE(base64_decoding) {
  auto ok = schedopt::k8s::decode_base64("aGVs\nbG8=", "x");
  BOOST_REQUIRE(ok.has_value());
  BOOST_CHECK_EQUAL(*ok, "hello");
  BOOST_CHECK(!schedopt::k8s::decode_base64("a$b", "x").has_value());
  BOOST_CHECK(!schedopt::k8s::decode_base64("aGVsbG8=x", "x").has_value());
  BOOST_CHECK(!schedopt::k8s::decode_base64("a", "x").has_value());
}
