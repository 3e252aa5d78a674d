// kubeconfig variants, broken kubeconfigs and the in-cluster layout in a temp dir.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
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

namespace {

std::string dir_in(const temp_dir& d, const std::string& name) {
  auto p = d.path + "/" + name;
  mkdir(p.c_str(), 0755);
  return p;
}

std::string write_in(const std::string& dir, const std::string& name, const std::string& text) {
  auto p = dir + "/" + name;
  std::ofstream(p) << text;
  return p;
}

std::string message_of(const schedopt::expected<schedopt::k8s::cluster_config>& cfg) {
  return cfg ? std::string{} : cfg.err().message;
}

} // namespace

// kubectl's merge of a $KUBECONFIG list: the first file to name an entry keeps it whole,
// current-context comes from the first file that sets one, missing files are skipped and
// relative paths resolve against the file that defined the entry.
BOOST_AUTO_TEST_CASE(kubeconfig_list_merges_as_kubectl_does) {
  temp_dir d;
  auto a = dir_in(d, "a");
  auto b = dir_in(d, "b");
  auto first = write_in(a, "config",
                        "clusters:\n"
                        "- name: c\n  cluster:\n    server: https://a.example\n"
                        "users:\n"
                        "- name: u\n  user:\n    token: a-token\n"
                        "contexts:\n"
                        "- name: ctx-a\n  context:\n    cluster: c\n    user: u\n");
  write_in(b, "ca.crt", "CA");
  write_in(b, "tok", "b-file-token\n");
  auto second = write_in(b, "config",
                         "current-context: ctx-b\n"
                         "clusters:\n"
                         "- name: c\n  cluster:\n    server: https://loses.example\n"
                         "- name: c2\n  cluster:\n    server: https://b.example\n"
                         "    certificate-authority: ca.crt\n"
                         "users:\n"
                         "- name: u\n  user:\n    token: loses\n"
                         "- name: u2\n  user:\n    tokenFile: tok\n"
                         "contexts:\n"
                         "- name: ctx-a\n  context:\n    cluster: c2\n    user: u2\n"
                         "- name: ctx-b\n  context:\n    cluster: c2\n    user: u2\n    namespace: b-ns\n"
                         "- name: ctx-mixed\n  context:\n    cluster: c\n    user: u2\n");
  std::vector<std::string> list{first, d.path + "/missing", second};

  // current-context: the first file sets none, the second does.
  auto cur = schedopt::k8s::load_kubeconfig_list(list);
  BOOST_REQUIRE_MESSAGE(cur.has_value(), message_of(cur));
  BOOST_CHECK_EQUAL(cur->server, "https://b.example");
  BOOST_CHECK_EQUAL(cur->ca_file, b + "/ca.crt");
  BOOST_CHECK_EQUAL(cur->token, "b-file-token");
  BOOST_CHECK_EQUAL(cur->token_file, b + "/tok");
  BOOST_CHECK_EQUAL(cur->namespace_, "b-ns");

  // ctx-a is named in both files: the first file's wins, with its cluster and user.
  auto ctx_a = schedopt::k8s::load_kubeconfig_list(list, "ctx-a");
  BOOST_REQUIRE_MESSAGE(ctx_a.has_value(), message_of(ctx_a));
  BOOST_CHECK_EQUAL(ctx_a->server, "https://a.example");
  BOOST_CHECK_EQUAL(ctx_a->token, "a-token");

  // A context of the second file names cluster c, which the first file won; its user's
  // relative tokenFile still hangs off the second file's directory.
  auto mixed = schedopt::k8s::load_kubeconfig_list(list, "ctx-mixed");
  BOOST_REQUIRE_MESSAGE(mixed.has_value(), message_of(mixed));
  BOOST_CHECK_EQUAL(mixed->server, "https://a.example");
  BOOST_CHECK_EQUAL(mixed->token_file, b + "/tok");

  // The first file to set current-context wins it.
  auto sets_a = write_in(a, "with-current", "current-context: ctx-a\n");
  auto both = schedopt::k8s::load_kubeconfig_list({sets_a, second, first});
  BOOST_REQUIRE_MESSAGE(both.has_value(), message_of(both));
  BOOST_CHECK_EQUAL(both->server, "https://b.example"); // ctx-a from the second file now
  BOOST_CHECK_EQUAL(both->source.find("(context ctx-a)") != std::string::npos, true);

  // Through $KUBECONFIG, with --context.
  setenv("KUBECONFIG", (first + ":" + d.path + "/missing:" + second).c_str(), 1);
  auto env = schedopt::k8s::load_cluster_config({}, "ctx-a");
  BOOST_REQUIRE_MESSAGE(env.has_value(), message_of(env));
  BOOST_CHECK_EQUAL(env->server, "https://a.example");
  auto env_current = schedopt::k8s::load_cluster_config();
  BOOST_REQUIRE(env_current.has_value());
  BOOST_CHECK_EQUAL(env_current->server, "https://b.example");
  // An explicit --kubeconfig is read alone: the first file sets no current-context.
  auto flag = schedopt::k8s::load_cluster_config(first);
  BOOST_REQUIRE(!flag.has_value());
  BOOST_CHECK_MESSAGE(flag.err().message.find("current-context is not set") != std::string::npos,
                      flag.err().message);

  // Every entry missing, and a broken file among good ones: one-line errors.
  setenv("KUBECONFIG", (d.path + "/x:" + d.path + "/y").c_str(), 1);
  auto none = schedopt::k8s::load_cluster_config();
  BOOST_REQUIRE(!none.has_value());
  BOOST_CHECK_MESSAGE(none.err().message.find("none of these files exists") != std::string::npos,
                      none.err().message);
  BOOST_CHECK(none.err().message.find(d.path + "/x:" + d.path + "/y") != std::string::npos);
  auto broken = write_in(b, "broken", "clusters: [\n");
  setenv("KUBECONFIG", (first + ":" + broken).c_str(), 1);
  auto bad = schedopt::k8s::load_cluster_config();
  BOOST_REQUIRE(!bad.has_value());
  BOOST_CHECK_MESSAGE(bad.err().message.find("kubeconfig " + broken + ": invalid YAML")
                        != std::string::npos,
                      bad.err().message);
  unsetenv("KUBECONFIG");
}

// What schedopt cannot do is refused when the kubeconfig is read, in one line naming the
// file, the user and the mechanism, rather than surfacing as a bare 401 later.
BOOST_AUTO_TEST_CASE(unsupported_user_authentication_is_refused_in_one_line) {
  temp_dir d;
  auto check = [&](const std::string& user, const std::vector<std::string>& wants) {
    auto path = d.write("config", kubeconfig("    server: https://k\n", user));
    auto cfg = load_kubeconfig(path);
    BOOST_REQUIRE_MESSAGE(!cfg.has_value(), user);
    const auto& msg = cfg.err().message;
    BOOST_TEST_MESSAGE(msg);
    BOOST_CHECK(cfg.err().code == schedopt::ec::config_error);
    BOOST_CHECK_MESSAGE(msg.find("kubeconfig " + path + ": user \"u\": ") == 0, msg);
    for (const auto& want : wants)
      BOOST_CHECK_MESSAGE(msg.find(want) != std::string::npos, msg + " lacks " + want);
    BOOST_CHECK(msg.find('\n') == std::string::npos);
  };
  check("    auth-provider:\n      name: gcp\n      config: {}\n",
        {"auth-provider \"gcp\" is not supported; use an exec credential plugin"});
  check("    username: admin\n    password: secret\n", {"basic auth", "not supported"});
  check("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: login\n"
        "      interactiveMode: Always\n",
        {"\"login\"", "interactiveMode Always"});
  check("    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n      command: x\n",
        {"v1alpha1", "not supported"});
  check("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n", {"command missing"});
  check("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: x\n"
        "      interactiveMode: Sometimes\n",
        {"unknown interactiveMode \"Sometimes\""});
}

// The exec stanza as the API client will run it: a command with a '/' resolves against the
// kubeconfig's directory, a bare name stays for the PATH search.
BOOST_AUTO_TEST_CASE(exec_stanza_is_read_with_its_command_resolved) {
  temp_dir d;
  auto path = d.write("config", kubeconfig(
    "    server: https://k\n    certificate-authority-data: " + std::string{hello_b64} + "\n",
    "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
    "      command: bin/plugin\n      args: [get-token, --verbose]\n"
    "      env:\n      - name: FOO\n        value: bar\n"
    "      installHint: install it\n      provideClusterInfo: true\n"
    "      interactiveMode: IfAvailable\n"));
  auto cfg = load_kubeconfig(path);
  BOOST_REQUIRE_MESSAGE(cfg.has_value(), message_of(cfg));
  BOOST_REQUIRE(cfg->exec.has_value());
  const auto& x = *cfg->exec;
  BOOST_CHECK_EQUAL(x.command, d.path + "/bin/plugin");
  BOOST_CHECK_EQUAL(x.args.size(), 2u);
  BOOST_CHECK_EQUAL(x.args.at(1), "--verbose");
  BOOST_REQUIRE_EQUAL(x.env.size(), 1u);
  BOOST_CHECK_EQUAL(x.env[0].first, "FOO");
  BOOST_CHECK_EQUAL(x.env[0].second, "bar");
  BOOST_CHECK_EQUAL(x.api_version, "client.authentication.k8s.io/v1beta1");
  BOOST_CHECK_EQUAL(x.install_hint, "install it");
  BOOST_CHECK(x.provide_cluster_info);
  BOOST_CHECK_EQUAL(x.server, "https://k");
  BOOST_CHECK_EQUAL(x.ca_data, "hello");
  BOOST_CHECK_EQUAL(x.user, "u");
  BOOST_CHECK(cfg->token.empty());

  auto bare = load_kubeconfig(d.write("bare", kubeconfig(
    "    server: https://k\n",
    "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: kubelogin\n")));
  BOOST_REQUIRE_MESSAGE(bare.has_value(), message_of(bare));
  BOOST_CHECK_EQUAL(bare->exec->command, "kubelogin");
}
