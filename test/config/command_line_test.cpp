// Config precedence (flag > env > file > default), every bad-input message, commands.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <unistd.h>

#include "config/command_line.hpp"

using namespace schedopt;
using namespace std::chrono_literals;

namespace {

struct fixture {
  std::map<std::string, std::string> vars;
  load_paths paths;
  std::vector<std::string> files;

  fixture() {
    paths.service_account_namespace_file = "/nonexistent/schedopt-test/namespace";
  }
  ~fixture() {
    for (const auto& f : files)
      std::remove(f.c_str());
  }

  environment env() {
    return [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end())
        return std::nullopt;
      return it->second;
    };
  }

  std::string write(const std::string& name, const std::string& content) {
    auto path = "/tmp/schedopt-config-test-" + std::to_string(::getpid()) + "-" + name;
    std::ofstream(path) << content;
    files.push_back(path);
    return path;
  }

  expected<parse_result> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "schedopt");
    return parse_command_line(args, env(), paths);
  }

  parse_result ok(std::vector<std::string> args) {
    auto r = parse(args);
    if (!r)
      BOOST_FAIL("unexpected error: " << r.err().message);
    return *r;
  }

  std::string fails(std::vector<std::string> args) {
    auto r = parse(args);
    BOOST_REQUIRE_MESSAGE(!r, "expected an error");
    BOOST_CHECK(r.err().code == ec::config_error);
    BOOST_CHECK(r.err().message.find('\n') == std::string::npos); // one line
    return r.err().message;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(command_line, fixture)

BOOST_AUTO_TEST_CASE(defaults) {
  auto r = ok({"run"});
  BOOST_CHECK(r.cmd == command::run);
  BOOST_CHECK(!r.help_requested);
  const auto& s = r.config;
  BOOST_CHECK(s.cool_off_period == 1h);
  BOOST_CHECK_EQUAL(s.max_parallel_migrations, 5);
  BOOST_CHECK_EQUAL(s.max_parallel_migrations_limit, 50);
  BOOST_CHECK_EQUAL(s.max_non_hyperconverged_per_run, 100);
  BOOST_CHECK(s.migration_timeout == 30min);
  BOOST_CHECK(s.status_flush_interval == 1s);
  BOOST_CHECK(s.status_heartbeat_interval == 30s);
  BOOST_CHECK(s.pin_target_node);
  BOOST_CHECK_EQUAL(s.driver, "portworx");
  BOOST_CHECK(!s.leader_elect);
  BOOST_CHECK_EQUAL(s.lease_namespace, ""); // out of cluster: run takes the kubeconfig context's
  BOOST_CHECK_EQUAL(s.lease_name, "schedopt-leader");
  BOOST_CHECK(s.lease_duration == 15s);
  BOOST_CHECK(s.renew_deadline == 10s);
  BOOST_CHECK(s.retry_period == 2s);
  BOOST_CHECK_EQUAL(s.metrics_listen, ":8443");
  BOOST_CHECK(s.metrics_secure);
  BOOST_CHECK_EQUAL(s.metrics_cert_file, "");
  BOOST_CHECK_EQUAL(s.metrics_key_file, "");
  BOOST_CHECK_EQUAL(s.health_listen, ":8081");
  BOOST_CHECK_EQUAL(s.log_format, "text");
  BOOST_CHECK_EQUAL(s.api_qps, 20);
  BOOST_CHECK_EQUAL(s.api_burst, 30);
  BOOST_CHECK_EQUAL(s.portworx_endpoint, "https://portworx-api.portworx.svc:9021");
}

BOOST_AUTO_TEST_CASE(lease_namespace_from_the_pod) {
  paths.service_account_namespace_file = write("ns", "schedopt-system\n");
  BOOST_CHECK_EQUAL(ok({"run"}).config.lease_namespace, "schedopt-system");
  BOOST_CHECK_EQUAL(ok({"run", "--lease-namespace", "other"}).config.lease_namespace, "other");
}

// client-go's renewDeadline > 1.2 x retryPeriod at its edge, in Go's arithmetic (the
// product truncated to nanoseconds): against 10s, 8.333333333s (x1.2 = 9.999999999s) passes
// and 8.333333334s (x1.2 = 10s) does not, though both are well below renewDeadline.
BOOST_AUTO_TEST_CASE(renew_deadline_must_exceed_1_2_retry_periods) {
  auto s = ok({"run", "--retry-period", "8.333333333s"}).config;
  BOOST_CHECK(s.retry_period == 8333333333ns);
  BOOST_CHECK(ok({"run", "--retry-period", "8s", "--renew-deadline", "9.7s"}).config.renew_deadline
              == 9700ms);
  auto msg = fails({"run", "--retry-period", "8.333333334s"});
  BOOST_CHECK_EQUAL(msg, "renewDeadline must be greater than retryPeriod*JitterFactor: "
                         "renewDeadline (default) 10s, retryPeriod (--retry-period) "
                         "8.333333334s (x1.2 = 10s)");
  BOOST_CHECK_EQUAL(fails({"run", "--retry-period", "8s", "--renew-deadline", "9.6s"}),
                    "renewDeadline must be greater than retryPeriod*JitterFactor: renewDeadline "
                    "(--renew-deadline) 9.6s, retryPeriod (--retry-period) 8s (x1.2 = 9.6s)");
}

BOOST_AUTO_TEST_CASE(precedence_flag_over_env_over_file_over_default) {
  auto file = write("p.yaml", "coolOffPeriod: 2h\nmaxParallelMigrations: 7\n"
                              "migrationTimeout: 10m\nmaxNonHyperconvergedPerRun: 9\n");
  vars["SCHEDOPT_COOL_OFF_PERIOD"] = "3h";
  vars["SCHEDOPT_MAX_PARALLEL_MIGRATIONS"] = "8";
  vars["SCHEDOPT_CONFIG"] = file;
  auto s = ok({"run", "--cool-off-period", "4h"}).config;
  BOOST_CHECK(s.cool_off_period == 4h);              // flag
  BOOST_CHECK_EQUAL(s.max_parallel_migrations, 8);   // env over file
  BOOST_CHECK(s.migration_timeout == 10min);         // file over default
  BOOST_CHECK_EQUAL(s.max_non_hyperconverged_per_run, 9);
  BOOST_CHECK_EQUAL(s.max_parallel_migrations_limit, 50); // default
  BOOST_CHECK_EQUAL(s.config_file, file);
}

BOOST_AUTO_TEST_CASE(config_flag_beats_config_env) {
  auto a = write("a.yaml", "driver: csi-topology\n");
  auto b = write("b.yaml", "driver: portworx\nleaderElect: true\n");
  vars["SCHEDOPT_CONFIG"] = b;
  auto s = ok({"run", "--config=" + a}).config;
  BOOST_CHECK_EQUAL(s.driver, "csi-topology");
  BOOST_CHECK(!s.leader_elect);
}

BOOST_AUTO_TEST_CASE(json_config_and_lists) {
  auto file = write("c.json", R"({"pinTargetNode": false, "csiTopologyDrivers": )"
                              R"(["a.csi", "b.csi"], "apiQps": 12.5, "logFormat": "json"})");
  auto s = ok({"plan", "--config", file}).config;
  BOOST_CHECK(!s.pin_target_node);
  BOOST_CHECK((s.csi_topology_drivers == std::vector<std::string>{"a.csi", "b.csi"}));
  BOOST_CHECK_EQUAL(s.api_qps, 12.5);
  BOOST_CHECK_EQUAL(s.log_format, "json");
  vars["SCHEDOPT_CSI_TOPOLOGY_DRIVERS"] = " x.csi , ,y.csi";
  s = ok({"plan", "--config", file}).config;
  BOOST_CHECK((s.csi_topology_drivers == std::vector<std::string>{"x.csi", "y.csi"}));
}

BOOST_AUTO_TEST_CASE(empty_config_file_means_defaults) {
  auto file = write("empty.yaml", "");
  BOOST_CHECK_EQUAL(ok({"run", "--config", file}).config.max_parallel_migrations, 5);
}

BOOST_AUTO_TEST_CASE(flag_spellings) {
  auto s = ok({"run", "--leader-elect", "--dry-run=true", "--no-pin-target-node",
               "--max-parallel-migrations=12", "--driver", "csi-topology",
               "--metrics-listen", "127.0.0.1:0", "--log-level", "debug", "--kubeconfig",
               "/tmp/kc", "--context", "kind", "--metrics-secure=false", "--health-listen",
               "[::1]:9000", "--metrics-cert-file", "/c.pem", "--metrics-key-file", "/k.pem"})
             .config;
  BOOST_CHECK(s.leader_elect);
  BOOST_CHECK(s.dry_run);
  BOOST_CHECK(!s.pin_target_node);
  BOOST_CHECK_EQUAL(s.max_parallel_migrations, 12);
  BOOST_CHECK_EQUAL(s.driver, "csi-topology");
  BOOST_CHECK_EQUAL(s.metrics_listen, "127.0.0.1:0");
  BOOST_CHECK(!s.metrics_secure);
  BOOST_CHECK_EQUAL(s.health_listen, "[::1]:9000");
  BOOST_CHECK_EQUAL(s.metrics_cert_file, "/c.pem");
  BOOST_CHECK_EQUAL(s.metrics_key_file, "/k.pem");
  BOOST_CHECK_EQUAL(s.log_level, "debug");
  BOOST_CHECK_EQUAL(s.kubeconfig, "/tmp/kc");
  BOOST_CHECK_EQUAL(s.context, "kind");
  BOOST_CHECK(!ok({"run", "--leader-elect=false"}).config.leader_elect);
}

// Every command that reads a kubeconfig picks its context from --context or
// SCHEDOPT_CONTEXT, the flag winning; load_cluster_config gets it from settings::context.
BOOST_AUTO_TEST_CASE(context_for_every_kubeconfig_command) {
  for (const char* cmd : {"run", "plan"})
    BOOST_CHECK_EQUAL(ok({cmd, "--kubeconfig", "/tmp/kc", "--context", "prod"}).config.context,
                      "prod");
  BOOST_CHECK_EQUAL(ok({"explain", "--all", "--context", "prod"}).config.context, "prod");
  vars["SCHEDOPT_CONTEXT"] = "from-env";
  BOOST_CHECK_EQUAL(ok({"plan"}).config.context, "from-env");
  BOOST_CHECK_EQUAL(ok({"plan", "--context=flag"}).config.context, "flag");
}

BOOST_AUTO_TEST_CASE(env_booleans_and_empty_env) {
  vars["SCHEDOPT_LEADER_ELECT"] = "1";
  vars["SCHEDOPT_DRIVER"] = ""; // set but empty: ignored
  auto s = ok({"run"}).config;
  BOOST_CHECK(s.leader_elect);
  BOOST_CHECK_EQUAL(s.driver, "portworx");
}

BOOST_AUTO_TEST_CASE(plan_output) {
  BOOST_CHECK_EQUAL(ok({"plan"}).plan.output, "table");
  BOOST_CHECK_EQUAL(ok({"plan", "-o", "json"}).plan.output, "json");
  BOOST_CHECK_EQUAL(ok({"plan", "-ojson"}).plan.output, "json");
  BOOST_CHECK_EQUAL(ok({"plan", "-o=json"}).plan.output, "json");
  BOOST_CHECK_EQUAL(ok({"plan", "--output=json"}).plan.output, "json");
  BOOST_CHECK_EQUAL(fails({"plan", "-o", "yaml"}), "-o \"yaml\": must be table or json");
  BOOST_CHECK_EQUAL(fails({"run", "-o", "json"}), "unknown flag -o (see schedopt run --help)");
  // No --kind: the registry's first (test_actors kind_footprint_test checks which).
  BOOST_CHECK_EQUAL(ok({"plan"}).plan.kind, "");
  BOOST_CHECK_EQUAL(ok({"plan", "--kind", "podHyperconvergence"}).plan.kind, "podHyperconvergence");
  BOOST_CHECK_EQUAL(fails({"plan", "--kind", ""}), "--kind \"\": must name an optimization kind");
  BOOST_CHECK_EQUAL(fails({"status", "--kind", "podHyperconvergence"}),
                    "unknown flag --kind (see schedopt status --help)");
}

BOOST_AUTO_TEST_CASE(explain_takes_plans_kind) {
  auto vm = ok({"explain", "vms/vm-1"});
  BOOST_CHECK_EQUAL(vm.explain.kind, "");
  BOOST_CHECK_EQUAL(vm.plan.kind, "");
  auto pod = ok({"explain", "db/db-0", "--kind", "podHyperconvergence", "-o", "json"});
  BOOST_CHECK_EQUAL(pod.explain.kind, "podHyperconvergence");
  BOOST_CHECK_EQUAL(pod.explain.namespace_, "db");
  BOOST_CHECK_EQUAL(pod.explain.name, "db-0");
  BOOST_CHECK_EQUAL(pod.explain.output, "json");
  // Only the command given takes the kind: plan's stays at its default.
  BOOST_CHECK_EQUAL(pod.plan.kind, "");
  BOOST_CHECK_EQUAL(ok({"explain", "--kind=podHyperconvergence", "--all"}).explain.kind,
                    "podHyperconvergence");
  BOOST_CHECK_EQUAL(fails({"explain", "--all", "--kind", ""}),
                    "--kind \"\": must name an optimization kind");
  BOOST_CHECK_EQUAL(fails({"explain", "--all", "--kind"}),
                    "--kind: missing value (see schedopt explain --help)");
  auto help = help_text(command::explain);
  BOOST_CHECK(help.find("--kind KIND") != std::string::npos);
  // The help names no kind (the registry, not config, knows them) and says where they
  // are listed.
  BOOST_CHECK(help.find("by its spec field (docs/cli.md lists them)") != std::string::npos);
  BOOST_CHECK(help.find("podHyperconvergence") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(demo_options_parse) {
  auto r = ok({"demo", "--vmis", "500", "--nodes=20", "--seed", "42", "--no-progress",
               "--failure-rate", "0.1", "--migration-delay", "50ms", "--max-parallel-migrations",
               "10"});
  BOOST_CHECK(r.cmd == command::demo);
  BOOST_CHECK_EQUAL(r.demo.vmis, 500);
  BOOST_CHECK_EQUAL(r.demo.nodes, 20);
  BOOST_CHECK_EQUAL(r.demo.seed, 42u);
  BOOST_CHECK(!r.demo.progress);
  BOOST_CHECK_EQUAL(r.demo.failure_rate, 0.1);
  BOOST_CHECK(r.demo.migration_delay == 50ms);
  BOOST_CHECK_EQUAL(r.config.max_parallel_migrations, 10);
  auto d = ok({"demo"}).demo;
  BOOST_CHECK_EQUAL(d.nodes, demo_options{}.nodes);
  BOOST_CHECK_EQUAL(d.vmis, demo_options{}.vmis);
}

BOOST_AUTO_TEST_CASE(explain_takes_one_vmi_or_all) {
  auto one = ok({"explain", "vms/vm-1", "-o", "json"});
  BOOST_CHECK(one.cmd == command::explain);
  BOOST_CHECK_EQUAL(one.explain.namespace_, "vms");
  BOOST_CHECK_EQUAL(one.explain.name, "vm-1");
  BOOST_CHECK_EQUAL(one.explain.output, "json");
  BOOST_CHECK(!one.explain.all);
  auto all = ok({"explain", "--all", "--max-non-hyperconverged-per-run", "7"});
  BOOST_CHECK(all.explain.all);
  BOOST_CHECK(all.explain.name.empty());
  BOOST_CHECK_EQUAL(all.explain.output, "table");
  BOOST_CHECK_EQUAL(all.config.max_non_hyperconverged_per_run, 7);
  BOOST_CHECK_EQUAL(ok({"plan", "-o", "json"}).plan.output, "json");
  auto help = help_text(command::explain);
  BOOST_CHECK(help.rfind("Usage: schedopt explain (NAMESPACE/NAME | --all) [flags]", 0) == 0);
  BOOST_CHECK(help.find("  --all ") != std::string::npos);
  BOOST_CHECK(help.find("-o, --output FORMAT") != std::string::npos);
  BOOST_CHECK(help_text(command::none).find("  explain  ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(status_takes_an_output_format) {
  auto r = ok({"status", "-o", "json", "--kubeconfig", "/k", "--context", "c"});
  BOOST_CHECK(r.cmd == command::status);
  BOOST_CHECK_EQUAL(r.status.output, "json");
  BOOST_CHECK_EQUAL(r.config.kubeconfig, "/k");
  BOOST_CHECK_EQUAL(r.config.context, "c");
  BOOST_CHECK_EQUAL(ok({"status"}).status.output, "table");
  BOOST_CHECK_EQUAL(fails({"status", "-o", "wide"}), "-o \"wide\": must be table or json");
  BOOST_CHECK_EQUAL(fails({"status", "so-1"}),
                    "unexpected argument \"so-1\" (see schedopt status --help)");
  BOOST_CHECK(help_text(command::status).rfind("Usage: schedopt status [flags]", 0) == 0);
  BOOST_CHECK(help_text(command::none).find("  status   ") != std::string::npos);
}

// kubectl runs a plugin with its own path as argv[0]: usage and errors then name the
// command as the user typed it.
BOOST_AUTO_TEST_CASE(as_kubectl_schedopt_usage_says_kubectl_schedopt) {
  BOOST_CHECK_EQUAL(program_name("/usr/local/bin/kubectl-schedopt"), "kubectl schedopt");
  BOOST_CHECK_EQUAL(program_name("kubectl-schedopt"), "kubectl schedopt");
  BOOST_CHECK_EQUAL(program_name("/usr/local/bin/schedopt"), "schedopt");
  BOOST_CHECK_EQUAL(program_name(""), "schedopt");
  auto help = parse_command_line({"/x/kubectl-schedopt", "status", "--help"}, env(), paths);
  BOOST_REQUIRE(help);
  BOOST_CHECK(help->help_text.rfind("Usage: kubectl schedopt status [flags]", 0) == 0);
  auto top = parse_command_line({"/x/kubectl-schedopt", "--help"}, env(), paths);
  BOOST_REQUIRE(top);
  BOOST_CHECK(top->help_text.rfind("Usage: kubectl schedopt <command> [flags]", 0) == 0);
  auto bad = parse_command_line({"/x/kubectl-schedopt", "plan", "--bogus"}, env(), paths);
  BOOST_REQUIRE(!bad);
  BOOST_CHECK_EQUAL(bad.err().message, "unknown flag --bogus (see kubectl schedopt plan --help)");
}

BOOST_AUTO_TEST_CASE(bad_input_messages) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> rows = {
    {{}, "missing command: want run, plan, explain, status or demo (see schedopt --help)"},
    {{"frobnicate"}, "unknown command \"frobnicate\": want run, plan, explain, status or demo"},
    {{"--leader-elect"}, "missing command before --leader-elect: want run, plan, explain, status or demo"},
    {{"run", "--foo"}, "unknown flag --foo (see schedopt run --help)"},
    {{"run", "--no-driver"}, "unknown flag --no-driver (see schedopt run --help)"},
    {{"run", "--no-dry-run=true"}, "--no-dry-run takes no value (see schedopt run --help)"},
    {{"run", "extra"}, "unexpected argument \"extra\" (see schedopt run --help)"},
    {{"run", "--driver"}, "--driver: missing value (see schedopt run --help)"},
    {{"run", "--cool-off-period", "abc"},
     "--cool-off-period \"abc\": invalid duration \"abc\""},
    {{"run", "--max-parallel-migrations", "x"},
     "--max-parallel-migrations \"x\": not an integer"},
    {{"run", "--max-parallel-migrations", "5x"},
     "--max-parallel-migrations \"5x\": not an integer"},
    {{"run", "--max-parallel-migrations", "0"},
     "--max-parallel-migrations \"0\": must be >= 1"},
    {{"run", "--max-parallel-migrations", "99999999999999999999"},
     "--max-parallel-migrations \"99999999999999999999\": integer out of range"},
    {{"run", "--migration-timeout", "0s"}, "--migration-timeout \"0s\": must be > 0"},
    {{"run", "--driver", "ceph"}, "--driver \"ceph\": must be one of csi-topology, longhorn, portworx"},
    {{"run", "--log-format", "xml"}, "--log-format \"xml\": must be one of json, text"},
    {{"run", "--log-level", "loud"},
     "--log-level \"loud\": must be one of critical, debug, error, info, off, trace, warn"},
    {{"run", "--dry-run=maybe"}, "--dry-run \"maybe\": not a boolean (want true or false)"},
    {{"run", "--metrics-listen", "8080"}, "--metrics-listen \"8080\": want HOST:PORT or :PORT"},
    {{"run", "--metrics-listen", ":http"},
     "--metrics-listen \":http\": port must be a number in 0..65535"},
    {{"run", "--health-listen", "8081"}, "--health-listen \"8081\": want HOST:PORT or :PORT"},
    {{"run", "--health-listen", ":70000"},
     "--health-listen \":70000\": port must be a number in 0..65535"},
    {{"run", "--metrics-secure=maybe"}, "--metrics-secure \"maybe\": not a boolean (want true or false)"},
    {{"run", "--metrics-cert-file", "/tls.crt"},
     "metricsCertFile (--metrics-cert-file) is set without metricsKeyFile: give the certificate "
     "and its key together"},
    {{"run", "--metrics-key-file", "/tls.key"},
     "metricsKeyFile (--metrics-key-file) is set without metricsCertFile: give the certificate "
     "and its key together"},
    {{"run", "--api-qps", "fast"}, "--api-qps \"fast\": not a number"},
    {{"run", "--api-qps", "-1"}, "--api-qps \"-1\": must be > 0"},
    {{"run", "--portworx-endpoint", "portworx:9021"},
     "--portworx-endpoint \"portworx:9021\": must start with http:// or https://"},
    {{"run", "--lease-name="}, "--lease-name \"\": must not be empty"},
    {{"run", "--vm-cool-off-annotation", "a/b/c"},
     "--vm-cool-off-annotation \"a/b/c\": not a valid annotation key (want prefix/name)"},
    {{"run", "--max-parallel-migrations", "60"},
     "maxParallelMigrations (--max-parallel-migrations) 60 exceeds maxParallelMigrationsLimit "
     "(default) 50"},
    {{"run", "--renew-deadline", "20s"},
     "leaseDuration must be greater than renewDeadline: leaseDuration (default) 15s, "
     "renewDeadline (--renew-deadline) 20s"},
    {{"run", "--renew-deadline", "15s"},
     "leaseDuration must be greater than renewDeadline: leaseDuration (default) 15s, "
     "renewDeadline (--renew-deadline) 15s"},
    {{"run", "--retry-period", "10s"},
     "renewDeadline must be greater than retryPeriod*JitterFactor: renewDeadline (default) 10s, "
     "retryPeriod (--retry-period) 10s (x1.2 = 12s)"},
    // Less than renewDeadline, but a retry jittered by 1.2 would not fit in it.
    {{"run", "--retry-period", "9s"},
     "renewDeadline must be greater than retryPeriod*JitterFactor: renewDeadline (default) 10s, "
     "retryPeriod (--retry-period) 9s (x1.2 = 10.8s)"},
    {{"run", "--retry-period", "8500ms", "--renew-deadline", "10.2s"},
     "renewDeadline must be greater than retryPeriod*JitterFactor: renewDeadline "
     "(--renew-deadline) 10.2s, retryPeriod (--retry-period) 8.5s (x1.2 = 10.2s)"},
    {{"demo", "--vmis", "-1"}, "--vmis \"-1\": must be >= 0"},
    {{"demo", "--failure-rate", "2"}, "--failure-rate \"2\": must be between 0 and 1"},
    {{"demo", "--nodes", "2", "--replicas", "3"}, "--replicas 3 exceeds --nodes 2"},
    {{"demo", "--seed", "-4"}, "--seed \"-4\": must be >= 0"},
    {{"help", "nope"}, "unknown command \"nope\": want run, plan, explain, status or demo"},
    {{"explain"}, "missing NAMESPACE/NAME (or --all) (see schedopt explain --help)"},
    {{"explain", "vm-1"}, "want NAMESPACE/NAME, got \"vm-1\" (see schedopt explain --help)"},
    {{"explain", "ns/"}, "want NAMESPACE/NAME, got \"ns/\" (see schedopt explain --help)"},
    {{"explain", "/vm"}, "want NAMESPACE/NAME, got \"/vm\" (see schedopt explain --help)"},
    {{"explain", "a/b/c"}, "want NAMESPACE/NAME, got \"a/b/c\" (see schedopt explain --help)"},
    {{"explain", "a/b", "c/d"},
     "explain takes one NAMESPACE/NAME, got \"c/d\" too (see schedopt explain --help)"},
    {{"explain", "a/b", "--all"},
     "--all and NAMESPACE/NAME exclude each other (see schedopt explain --help)"},
    {{"explain", "--all", "-o", "yaml"}, "-o \"yaml\": must be table or json"},
    {{"plan", "ns/vm"}, "unexpected argument \"ns/vm\" (see schedopt plan --help)"},
  };
  for (const auto& [args, expected] : rows) {
    BOOST_TEST_CONTEXT("args " << args.size()) {
      auto msg = fails(args);
      // Duration messages continue with the parser's own explanation.
      BOOST_CHECK_MESSAGE(msg.rfind(expected, 0) == 0, "got: " << msg << "\nwant: " << expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_environment_messages) {
  vars["SCHEDOPT_MAX_PARALLEL_MIGRATIONS"] = "x";
  BOOST_CHECK_EQUAL(fails({"run"}), "SCHEDOPT_MAX_PARALLEL_MIGRATIONS \"x\": not an integer");
  vars.clear();
  vars["SCHEDOPT_COOL_OFF_PERIOD"] = "1 hour";
  BOOST_CHECK(fails({"run"}).rfind("SCHEDOPT_COOL_OFF_PERIOD \"1 hour\": invalid duration", 0)
              == 0);
  vars.clear();
  vars["SCHEDOPT_MAX_PARALLEL_MIGRATIONS"] = "70";
  BOOST_CHECK_EQUAL(fails({"run"}), "maxParallelMigrations (SCHEDOPT_MAX_PARALLEL_MIGRATIONS) "
                                    "70 exceeds maxParallelMigrationsLimit (default) 50");
  // The flag wins over a bad environment value only if it is applied later; the bad
  // environment value is still reported, so a broken Deployment is noticed.
  vars.clear();
  vars["SCHEDOPT_DRIVER"] = "nfs";
  BOOST_CHECK_EQUAL(fails({"run", "--driver", "portworx"}),
                    "SCHEDOPT_DRIVER \"nfs\": must be one of csi-topology, longhorn, portworx");
}

BOOST_AUTO_TEST_CASE(bad_file_messages) {
  auto limit = write("config.yaml", "maxParallelMigrationsLimit: 0\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", limit}),
                    limit + ": maxParallelMigrationsLimit: must be >= 1");
  auto unknown = write("unknown.yaml", "coolOff: 1h\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", unknown}), unknown + ": coolOff: unknown setting");
  auto nested = write("nested.yaml", "config: other.yaml\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", nested}), nested + ": config: unknown setting");
  auto notmap = write("list.yaml", "- a\n- b\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", notmap}),
                    notmap + ": expected a mapping of settings");
  auto object = write("object.yaml", "driver: {name: portworx}\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", object}), object + ": driver: expected a scalar");
  auto broken = write("broken.yaml", "driver: [unclosed\n");
  BOOST_CHECK(fails({"run", "--config", broken}).rfind(broken + ": invalid YAML: ", 0) == 0);
  auto listed = write("listed.yaml", "coolOffPeriod: [1, 2]\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", listed}),
                    listed + ": coolOffPeriod: expected one DURATION value, got a list");
  auto drivers = write("drivers.yaml", "csiTopologyDrivers: [a.csi.io, b.csi.io]\n");
  BOOST_CHECK((ok({"run", "--config", drivers}).config.csi_topology_drivers
               == std::vector<std::string>{"a.csi.io", "b.csi.io"})); // a LIST setting takes one
  auto dur = write("dur.yaml", "coolOffPeriod: soon\n");
  BOOST_CHECK(fails({"run", "--config", dur}).rfind(dur + ": coolOffPeriod: invalid duration", 0)
              == 0);
  BOOST_CHECK(fails({"run", "--config", "/nonexistent/schedopt.yaml"})
                .rfind("/nonexistent/schedopt.yaml: cannot read: ", 0)
              == 0);
}

// The token used to be a setting of its own; naming it anywhere now says where it went,
// without repeating the value.
BOOST_AUTO_TEST_CASE(an_inline_portworx_token_is_refused_everywhere) {
  const std::string gone =
    "removed, a token there is readable by anyone who can read the pod spec or the ConfigMap: "
    "put it in a Secret mounted as a file and set portworxTokenFile (--portworx-token-file)";
  BOOST_CHECK_EQUAL(fails({"run", "--portworx-token", "s3cret"}), "--portworx-token: " + gone);
  BOOST_CHECK_EQUAL(fails({"run", "--portworx-token=s3cret"}), "--portworx-token: " + gone);
  auto file = write("token.yaml", "portworxToken: s3cret\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", file}), file + ": portworxToken: " + gone);
  vars["SCHEDOPT_PORTWORX_TOKEN"] = "s3cret";
  BOOST_CHECK_EQUAL(fails({"run"}), "SCHEDOPT_PORTWORX_TOKEN: " + gone);
  vars["SCHEDOPT_PORTWORX_TOKEN"] = ""; // set but empty counts as unset, as for every variable
  ok({"run"});
}

// A bearer token is only ever configured for https://; where each value came from is named.
BOOST_AUTO_TEST_CASE(a_token_file_with_a_plain_http_endpoint_is_refused) {
  auto file = write("px.yaml", "portworxEndpoint: http://portworx-api.portworx.svc:9021\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", file, "--portworx-token-file", "/var/run/px/token"}),
                    "portworxTokenFile (--portworx-token-file) is set but portworxEndpoint (" + file
                      + ") \"http://portworx-api.portworx.svc:9021\" is plain http://, which would "
                        "send the Portworx token in clear text: use an https:// endpoint "
                        "(portworxCaFile for its CA)");
  vars["SCHEDOPT_PORTWORX_TOKEN_FILE"] = "/var/run/px/token";
  BOOST_CHECK(fails({"plan", "--portworx-endpoint", "http://px:9021"})
                .rfind("portworxTokenFile (SCHEDOPT_PORTWORX_TOKEN_FILE) is set but portworxEndpoint "
                       "(--portworx-endpoint) \"http://px:9021\" is plain http://",
                       0)
              == 0);
  // The default endpoint is https, and so is any https:// one.
  BOOST_CHECK_EQUAL(ok({"run"}).config.portworx_token_file, "/var/run/px/token");
  ok({"run", "--portworx-endpoint", "https://10.0.0.5:9021"});
  // Plain http without a token (PX-Security off) stays allowed; so does a token setting
  // left behind when another driver, which never sends it, is chosen.
  vars.clear();
  ok({"run", "--portworx-endpoint", "http://px:9021"});
  vars["SCHEDOPT_PORTWORX_TOKEN_FILE"] = "/var/run/px/token";
  ok({"run", "--portworx-endpoint", "http://px:9021", "--driver", "csi-topology"});
}

// The fuzz target hands the file's bytes in through load_paths::config_file_text; the
// answer must be the one reading the same bytes from disk gives.
BOOST_AUTO_TEST_CASE(config_file_text_answers_as_the_file_does) {
  const std::string texts[] = {
    "coolOffPeriod: 2h\nmaxParallelMigrations: 7\n",
    "maxParallelMigrationsLimit: 0\n",
    "driver: [unclosed\n",
    "driver: {name: portworx}\n",
    "- a\n",
    "",
  };
  for (const auto& text : texts) {
    auto file = write("same.yaml", text);
    auto from_disk = parse({"run", "--config", file});
    std::vector<std::string> asked;
    paths.config_file_text = [&](const std::string& path) -> expected<std::string> {
      asked.push_back(path);
      return text;
    };
    auto from_text = parse({"run", "--config", file});
    paths.config_file_text = nullptr;
    BOOST_TEST_CONTEXT(text) {
      BOOST_CHECK_EQUAL(asked.size(), 1u);
      BOOST_CHECK_EQUAL(asked.empty() ? "" : asked.front(), file);
      BOOST_REQUIRE_EQUAL(from_disk.has_value(), from_text.has_value());
      if (from_disk) {
        BOOST_CHECK_EQUAL(from_text->config.cool_off_period.count(),
                          from_disk->config.cool_off_period.count());
        BOOST_CHECK_EQUAL(from_text->config.max_parallel_migrations,
                          from_disk->config.max_parallel_migrations);
        BOOST_CHECK_EQUAL(from_text->config.config_file, file);
      } else {
        BOOST_CHECK_EQUAL(from_text.err().message, from_disk.err().message);
      }
    }
  }
  // Its error is the command line's error, as a failed read would be.
  paths.config_file_text = [](const std::string& path) -> expected<std::string> {
    return make_error(ec::config_error, path + ": cannot read: gone");
  };
  BOOST_CHECK_EQUAL(fails({"run", "--config", "x.yaml"}), "x.yaml: cannot read: gone");
  // Without --config or SCHEDOPT_CONFIG nothing is asked for.
  bool called = false;
  paths.config_file_text = [&](const std::string&) -> expected<std::string> {
    called = true;
    return std::string{};
  };
  ok({"run"});
  BOOST_CHECK(!called);
}

BOOST_AUTO_TEST_CASE(help_requests) {
  auto top = ok({"--help"});
  BOOST_CHECK(top.help_requested);
  BOOST_CHECK(top.cmd == command::none);
  BOOST_CHECK(top.help_text.find("Commands:") != std::string::npos);
  for (auto args : std::vector<std::vector<std::string>>{
         {"run", "--help"}, {"run", "-h"}, {"help", "run"}, {"run", "--driver", "x", "--help"}}) {
    auto r = ok(args);
    BOOST_CHECK(r.help_requested);
    BOOST_CHECK(r.cmd == command::run);
    BOOST_CHECK_EQUAL(r.help_text, help_text(command::run));
  }
}

BOOST_AUTO_TEST_SUITE_END()
