// Command line of schedopt-sim (docs/simulator.md): `serve` with scenario and fault flags, --help.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "sim/authorization.hpp"
#include "sim/faults.hpp"
#include "sim/scenario.hpp"

namespace schedopt::sim {

/// --service-account NS/NAME with the --service-account-dir DIR that follows it.
struct service_account_option {
  std::string ns;
  std::string name;
  std::string dir;
};

/// --partition-user-agent S --partition-after DUR --partition-for DUR.
struct partition_option {
  std::string user_agent; // empty: no partition
  std::chrono::milliseconds after{0};
  std::chrono::milliseconds length{0};
};

struct serve_options {
  std::string listen_host = "127.0.0.1";
  int listen_port = 0;
  std::string kubeconfig_out;
  std::string token;            // empty: a random one is generated
  std::string sdk_endpoint_out; // file receiving the SDK gateway URL
  std::string sdk_token;
  /// Not empty: the SDK gateway serves HTTPS with a CA of its own, written here as PEM.
  std::string sdk_ca_out;
  int sdk_port = 0;
  std::string crd_dir;          // default: SCHEDOPT_DEPLOY_DIR/crds
  std::size_t watch_history = 10000;
  /// etcd compaction as kube-apiserver's compactor runs it (0: never).
  std::chrono::milliseconds compaction_interval{std::chrono::minutes(5)};
  /// Watch bookmarks, as the watch cache sends them (about once a minute).
  std::chrono::milliseconds bookmark_interval{std::chrono::minutes(1)};
  std::chrono::milliseconds failover_after{0}; // 0: never
  std::string drain_node;                      // --drain-node; empty: no drain
  std::chrono::milliseconds drain_after{0};    // counted from ready
  authorization_mode authorization = authorization_mode::always_allow;
  std::vector<service_account_option> service_accounts;
  scenario_options scenario;
  fault_options faults;
  partition_option partition;
};

struct sim_command {
  enum class kind { help, serve_help, serve, attach_help, attach } what = kind::help;
  /// serve's options; for attach, the scenario's and the SDK gateway's of them.
  serve_options serve;
  /// attach: the kubeconfig of the API server to attach to.
  std::string attach_kubeconfig;
  /// attach --kwok DIR: start kwok from DIR (bin/kwok, kwok-stages/) as the kubelets.
  std::string kwok_dir;
  /// attach --admin-endpoint-out FILE: where the URL of its /admin endpoint goes.
  std::string admin_endpoint_out;
};

/// Parses argv (without argv[0]); errors are one-line config_error messages.
expected<sim_command> parse_sim_command_line(const std::vector<std::string>& args);

std::string sim_usage();
std::string serve_usage();
std::string attach_usage();

} // namespace schedopt::sim
